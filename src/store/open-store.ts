import type { Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import type { DatabaseState } from './database-watch.ts'
import { appliedMigrationsFields, migrateUp } from './migrations.ts'
import { openDatabase } from './open-database.ts'
import { acquireServerLock } from './server-lock.ts'
import { sqliteStoreOf } from './sqlite-store-of.ts'
import { keepPeople } from './keep-people.ts'
import type { Store } from './store.ts'
import type { WriteTurn } from './write-turn.ts'
import type { SharedPacingBudget } from './shared-pacing-budget.ts'

export interface OpenStoreDeps {
  settings: Pick<Settings, 'database'>
  logger: Logger
  /** The environment the PG* variables are read from (the driver reads them itself; they are scrubbed from its messages). */
  env?: Record<string, string | undefined>
  /** SQLite: how long a write waits for another program's lock before the delivery gets a 503. */
  lockWaitMs?: number
  /** SQLite: how often the database path is compared with the opened file. */
  checkMs?: number
  /** SQLite: the process's write turn, shared with the acknowledging thread's connection (write-turn.ts). */
  writeTurn?: WriteTurn | undefined
  /** PostgreSQL: connections for per-pull-request locks, which the batches running at once each hold. */
  lockConnections: number
}

export interface OpenedStore {
  store: Store
  /** `ok`, or what happened to the SQLite file while the server runs (a PostgreSQL database has no file). */
  state(): DatabaseState
  /** Closes the store and gives up the claim on the database. */
  close(): Promise<void>
  /** PostgreSQL: Slack's budgets shared by every replica (docs/scaling.md); none for SQLite's single server. */
  pacingBudget?: SharedPacingBudget
}

/**
 * Opens the store `database.url` names, migrated (rows of every host side by side), so that nothing
 * above it knows which backend it has. SQLite: one server per file (the server lock is taken before the file
 * is opened) and a watch on the file. PostgreSQL: any number of replicas (docs/architecture.md).
 */
export async function openStore(deps: OpenStoreDeps): Promise<OpenedStore> {
  const { settings, logger } = deps
  const target = settings.database
  if (target.kind === 'postgres') {
    // Loaded only here: a server on SQLite does not load the PostgreSQL driver at all.
    const { openPostgresStore } = await import('./open-postgres-store.ts')
    return openPostgresStore({ url: target.url, logger, env: deps.env ?? process.env, lockConnections: deps.lockConnections })
  }

  // One server per SQLite file: claimed before the database is even opened, released only by close() or death.
  const lock = acquireServerLock(target.path)
  let db
  try {
    db = openDatabase(target.path)
    const applied = migrateUp(db)
    if (applied.length > 0) logger.info('migrations applied', appliedMigrationsFields(applied))
  } catch (error) {
    db?.close()
    lock.release()
    throw error
  }
  const { store, watch } = sqliteStoreOf(db, target.path, { logger, lockWaitMs: deps.lockWaitMs, checkMs: deps.checkMs, writeTurn: deps.writeTurn })
  const close = async () => {
    watch.stop()
    await store.close()
    lock.release()
  }
  try {
    await keepPeople(store, logger)
  } catch (error) {
    await close()
    throw error
  }
  return { store, state: watch.state, close }
}


