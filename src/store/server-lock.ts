import Database from 'better-sqlite3'
import { PrheraldError } from '../errors.ts'
import { ensureDatabaseDirectory } from './ensure-database-directory.ts'
import { makeDatabaseFilesPrivate } from './private-database-files.ts'

export interface ServerLock {
  path: string
  release(): void
}

/** The sibling file that says "a server uses this database"; the database itself stays free for the CLIs. */
export function serverLockPath(databasePath: string): string {
  return `${databasePath}-server.lock`
}

const isBusy = (error: unknown) => String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')

/**
 * Claims the database for one prherald-server. The claim is an exclusive SQLite lock on a small sibling
 * database, held until release(): SQLite's locks are the operating system's (fcntl on POSIX), so they vanish
 * with the process however it ends (a restart right after SIGKILL starts), and SQLite also refuses a second
 * connection of the same process, so two in-process services are refused too. A pid file or heartbeat would
 * need stale-detection; this needs none. The main database is not locked, so `prherald-migrate status` and
 * `prherald-doctor` keep working while the server runs.
 */
export function acquireServerLock(databasePath: string): ServerLock {
  const path = serverLockPath(databasePath)
  let db: Database.Database | undefined
  try {
    ensureDatabaseDirectory(databasePath)
    makeDatabaseFilesPrivate(path)
    db = new Database(path)
    // Never wait: a held lock means another server, and waiting would only delay the refusal.
    db.pragma('busy_timeout = 0')
    db.pragma('locking_mode = EXCLUSIVE')
    db.exec('BEGIN EXCLUSIVE')
  } catch (cause) {
    db?.close()
    if (isBusy(cause)) {
      throw new PrheraldError('database_in_use', `another prherald-server is using the database ${databasePath} (it holds ${path})`, {
        cause,
        fix: 'run one server per SQLite file: stop the other server, or give this one its own database (PRHERALD_DATABASE_URL / database.url); or run several replicas on one PostgreSQL database (database.url: postgres://…)',
      })
    }
    throw new PrheraldError('database', `cannot create the lock file ${path}: ${(cause as Error).message}`, {
      cause, fix: 'check that the database directory is writable by this user',
    })
  }
  const held = db
  return {
    path,
    release() {
      // Closing ends the transaction and drops the lock; the file stays, harmless, for the next start.
      if (held.open) held.close()
    },
  }
}
