import type { Logger } from '../log/logger.ts'
import { watchDatabaseFile } from './database-watch.ts'
import type { SqliteDatabase } from './open-database.ts'
import { createSqliteStore } from './sqlite-store.ts'
import type { WriteTurn } from './write-turn.ts'

/**
 * The store over an opened SQLite file, with the watch that compares its path with the opened file before
 * each commit (read right after the file was opened: the identity every commit compares the path with). The
 * server's connection and the acknowledging thread's (open-intake-store.ts) are made the same way.
 */
export function sqliteStoreOf(
  db: SqliteDatabase, path: string, deps: { logger: Logger; lockWaitMs?: number; checkMs?: number; writeTurn?: WriteTurn | undefined },
): { store: ReturnType<typeof createSqliteStore>; watch: ReturnType<typeof watchDatabaseFile> } {
  const watch = watchDatabaseFile({ path, logger: deps.logger, intervalMs: deps.checkMs })
  const store = createSqliteStore(db, Date.now, {
    lockWaitMs: deps.lockWaitMs,
    writeTurn: deps.writeTurn,
    fileState: watch.verify,
    onLockWait: (writes) => deps.logger.warn('the database is locked by another program; writes wait for it', {
      database: path, writes,
      fix: 'end the other program\'s write transaction (a sqlite3 shell, a backup tool); deliveries that wait too long get a 503',
    }),
  })
  return { store, watch }
}
