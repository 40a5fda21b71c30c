import type { Provider } from '../../machines/pull-request-event.ts'
import { providerMismatch } from './database-provider.ts'
import type { PostgresPool } from './postgres-pool.ts'

const KEY = 'git_provider'

/**
 * The PostgreSQL twin of database-provider.ts: the provider the database serves (its record, or else the one
 * its newest rows belong to); undefined for a database with neither, or one not migrated yet. Reads only.
 */
export async function postgresDatabaseProvider(pool: Pick<PostgresPool, 'query'>): Promise<Provider | undefined> {
  const { rows: [tables] } = await pool.query<{ meta: string | null; deliveries: string | null; messages: string | null }>(
    "SELECT to_regclass('meta') AS meta, to_regclass('deliveries') AS deliveries, to_regclass('slack_messages') AS messages")
  const first = async (sql: string) => (await pool.query<{ provider: Provider }>(sql)).rows[0]?.provider
  return (tables?.meta ? await first(`SELECT value AS provider FROM meta WHERE key = '${KEY}'`) : undefined)
    ?? (tables?.deliveries ? await first('SELECT provider FROM deliveries ORDER BY seq DESC LIMIT 1') : undefined)
    ?? (tables?.messages ? await first('SELECT provider FROM slack_messages ORDER BY touched_at DESC LIMIT 1') : undefined)
}

/**
 * Records the provider on a database that has none yet, then refuses a configuration for the other one.
 * Replicas starting at once agree: the first insert wins and every one compares with what was stored.
 */
export async function claimPostgresProvider(pool: PostgresPool, where: string, configured: Provider): Promise<void> {
  const recorded = (await postgresDatabaseProvider(pool)) ?? configured
  await pool.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [KEY, recorded])
  const stored = (await pool.query<{ value: Provider }>('SELECT value FROM meta WHERE key = $1', [KEY])).rows[0]?.value ?? recorded
  if (stored !== configured) throw providerMismatch(where, stored, configured)
}
