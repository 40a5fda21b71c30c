import type { DatabaseTarget } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import type { DatabaseState } from './database-watch.ts'
import { databaseSecrets } from './database-secrets.ts'
import { openDatabase } from './open-database.ts'
import { sqliteStoreOf } from './sqlite-store-of.ts'
import type { DeliveryStore, MessageStore, SharedWork } from './store.ts'
import type { WriteTurn } from './write-turn.ts'

/** What the acknowledging thread's intake reads and writes: deliveries, and the messages its filter looks at. */
export type IntakeStore = DeliveryStore & MessageStore & Pick<SharedWork, 'soleServer' | 'pendingDeliveriesOf'>

export interface OpenedIntakeStore {
  store: IntakeStore
  /** `ok`, or what happened to the SQLite file (a PostgreSQL database has no file). */
  state(): DatabaseState
  close(): Promise<void>
}

export interface OpenIntakeStoreDeps {
  database: DatabaseTarget
  logger: Logger
  env: Record<string, string | undefined>
  /** SQLite: how long a write may wait for another program's lock before the delivery gets a 503. */
  lockWaitMs?: number
  /** SQLite: the process's write turn, shared with the main thread's connection (write-turn.ts). */
  writeTurn: WriteTurn
}

/**
 * A second connection to the database the server already opened (and migrated, and on SQLite locked against
 * other servers): the acknowledging thread's own, so that its group commit never waits for the processing
 * loop's turn. SQLite: the same WAL file, two writers of one process taking one write turn (write-turn.ts). PostgreSQL: a small pool of its own. `soleServer` is false for this store whatever the
 * database: the thread cannot see the processing loop's mailboxes, so its filter asks the store whether a
 * pull request has pending deliveries, as a replica does (src/intake/filter-intake.ts).
 */
export async function openIntakeStore(deps: OpenIntakeStoreDeps): Promise<OpenedIntakeStore> {
  const { database, logger } = deps
  if (database.kind === 'postgres') {
    const { openPostgresPool } = await import('./postgres-pool.ts')
    const { createPostgresStore } = await import('./postgres-store.ts')
    const secrets = databaseSecrets(database.url, deps.env)
    const onIdleError = (message: string) => logger.warn('a PostgreSQL connection broke; the next query opens a new one', { error: message })
    // Reads and one-statement writes only: the intake takes no per-pull-request lock, so the lock pool stays at one.
    const pool = await openPostgresPool({ url: database.url, secrets, onIdleError, maxConnections: 4 })
    const lockPool = await openPostgresPool({ url: database.url, secrets, onIdleError, maxConnections: 1 }).catch(async (error: unknown) => {
      await pool.end()
      throw error
    })
    const store = createPostgresStore({ pool, lockPool })
    return { store: { ...store, soleServer: false }, state: () => 'ok', close: () => store.close() }
  }
  const { store, watch } = sqliteStoreOf(openDatabase(database.path), database.path, { logger, lockWaitMs: deps.lockWaitMs, writeTurn: deps.writeTurn })
  return {
    store: { ...store, soleServer: false },
    state: watch.state,
    close: async () => {
      watch.stop()
      await store.close()
    },
  }
}
