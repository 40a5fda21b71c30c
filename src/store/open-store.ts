import type { Settings } from '../config/settings.ts'
import { redactUrl } from '../config/redact-url.ts'
import type { Logger } from '../log/logger.ts'
import { claimProvider } from './database-provider.ts'
import { watchDatabaseFile, type DatabaseState } from './database-watch.ts'
import { migrateUp, type Migration } from './migrations.ts'
import { openDatabase } from './open-database.ts'
import { postgresMigrateUp } from './postgres-migrations.ts'
import { openPostgresPool } from './postgres-pool.ts'
import { claimPostgresProvider } from './postgres-provider.ts'
import { createPostgresStore } from './postgres-store.ts'
import { acquireServerLock } from './server-lock.ts'
import { createSqliteStore } from './sqlite-store.ts'
import type { Store } from './store.ts'
import { databaseSecrets } from './database-secrets.ts'

export interface OpenStoreDeps {
  settings: Pick<Settings, 'database' | 'gitProvider'>
  logger: Logger
  /** The environment the PG* variables are read from (the driver reads them itself; they are scrubbed from its messages). */
  env?: Record<string, string | undefined>
  /** SQLite: how long a write waits for another program's lock before the delivery gets a 503. */
  lockWaitMs?: number
  /** SQLite: how often the database path is compared with the opened file. */
  checkMs?: number
  /** PostgreSQL: connections for per-pull-request locks, which the batches running at once each hold. */
  lockConnections: number
}

export interface OpenedStore {
  store: Store
  /** `ok`, or what happened to the SQLite file while the server runs (a PostgreSQL database has no file). */
  state(): DatabaseState
  /** Closes the store and gives up the claim on the database. */
  close(): Promise<void>
}

/**
 * Opens the store `database.url` names, migrated and claimed for this server's git provider, so that nothing
 * above it knows which backend it has. SQLite: one server per file (the server lock is taken before the file
 * is opened) and a watch on the file. PostgreSQL: any number of replicas (docs/architecture.md).
 */
export async function openStore(deps: OpenStoreDeps): Promise<OpenedStore> {
  const { settings, logger } = deps
  const logApplied = (applied: Migration[]) => {
    if (applied.length > 0) logger.info('migrations applied', { versions: applied.map((m) => `${m.version}_${m.name}`) })
  }
  const target = settings.database
  if (target.kind === 'postgres') {
    const secrets = databaseSecrets(target.url, deps.env ?? process.env)
    const onIdleError = (message: string) => logger.warn('a PostgreSQL connection broke; the next query opens a new one', { error: message })
    const pool = await openPostgresPool({ url: target.url, secrets, onIdleError })
    const lockPool = await openPostgresPool({ url: target.url, secrets, onIdleError, maxConnections: deps.lockConnections }).catch(async (error: unknown) => {
      await pool.end()
      throw error
    })
    const store = createPostgresStore({ pool, lockPool })
    try {
      logApplied(await postgresMigrateUp(pool))
      await claimPostgresProvider(pool, redactUrl(target.url), settings.gitProvider)
    } catch (error) {
      await store.close()
      throw error
    }
    return { store, state: () => 'ok', close: () => store.close() }
  }

  // One server per SQLite file: claimed before the database is even opened, released only by close() or death.
  const lock = acquireServerLock(target.path)
  let db
  try {
    db = openDatabase(target.path)
    logApplied(migrateUp(db))
    claimProvider(db, target.path, settings.gitProvider)
  } catch (error) {
    db?.close()
    lock.release()
    throw error
  }
  const store = createSqliteStore(db, Date.now, {
    lockWaitMs: deps.lockWaitMs,
    onLockWait: (writes) => logger.warn('the database is locked by another program; writes wait for it', {
      database: target.path, writes,
      fix: 'end the other program\'s write transaction (a sqlite3 shell, a backup tool); deliveries that wait too long get a 503',
    }),
  })
  const watch = watchDatabaseFile({ path: target.path, logger, intervalMs: deps.checkMs })
  return {
    store,
    state: watch.state,
    async close() {
      watch.stop()
      await store.close()
      lock.release()
    },
  }
}

