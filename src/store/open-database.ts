import Database from 'better-sqlite3'
import { PrheraldError } from '../errors.ts'
import { ensureDatabaseDirectory } from './ensure-database-directory.ts'
import { makeDatabaseFilesPrivate } from './private-database-files.ts'

export type SqliteDatabase = Database.Database

/** Opens (creating its directory, 0700, and the file, 0600) the SQLite file in WAL mode. */
export function openDatabase(path: string): SqliteDatabase {
  try {
    ensureDatabaseDirectory(path)
    makeDatabaseFilesPrivate(path)
    const db = new Database(path)
    db.pragma('journal_mode = WAL')
    // FULL: an acknowledged delivery must survive power loss too, not only a process crash.
    db.pragma('synchronous = FULL')
    db.pragma('busy_timeout = 5000')
    return db
  } catch (cause) {
    throw new PrheraldError('database', `cannot open the database at ${path}: ${(cause as Error).message}`, {
      cause,
      fix: 'check that the directory is writable by this user, or set PRHERALD_DATABASE_URL / database.url to a writable file',
    })
  }
}
