import { createPostgresPacingBudget } from './postgres-pacing-budget.ts'
import type { Logger } from '../log/logger.ts'
import { databaseSecrets } from './database-secrets.ts'
import type { OpenedStore } from './open-store.ts'
import { keepPeople } from './keep-people.ts'
import { postgresMigrateUp } from './postgres-migrations.ts'
import { appliedMigrationsFields } from './migrations.ts'
import { openPostgresPool } from './postgres-pool.ts'
import { createPostgresStore } from './postgres-store.ts'

export interface OpenPostgresStoreDeps {
  url: string
  logger: Logger
  /** Where PGPASSWORD is read from, to keep it out of messages (the driver reads it itself). */
  env: Record<string, string | undefined>
  /** Connections for per-pull-request locks, which the batches running at once each hold. */
  lockConnections: number
}

/** open-store.ts for a PostgreSQL URL: two pools (queries, and per-PR locks), migrated. */
export async function openPostgresStore(deps: OpenPostgresStoreDeps): Promise<OpenedStore> {
  const { url, logger } = deps
  const secrets = databaseSecrets(url, deps.env)
  const onIdleError = (message: string) => logger.warn('a PostgreSQL connection broke; the next query opens a new one', { error: message })
  const pool = await openPostgresPool({ url, secrets, onIdleError })
  const lockPool = await openPostgresPool({ url, secrets, onIdleError, maxConnections: deps.lockConnections }).catch(async (error: unknown) => {
    await pool.end()
    throw error
  })
  const store = createPostgresStore({ pool, lockPool })
  try {
    const applied = await postgresMigrateUp(pool)
    if (applied.length > 0) logger.info('migrations applied', appliedMigrationsFields(applied))
  } catch (error) {
    await store.close()
    throw error
  }
  try {
    await keepPeople(store, logger)
  } catch (error) {
    await store.close()
    throw error
  }
  return { store, state: () => 'ok', close: () => store.close(), pacingBudget: createPostgresPacingBudget({ pool }) }
}
