import type { Provider } from '../../machines/pull-request-event.ts'
import type { PostgresPool } from './postgres-pool.ts'

/** The PostgreSQL twin of database-provider.ts: the hosts the database's rows belong to; none before migrating. */
export async function postgresDatabaseHosts(pool: Pick<PostgresPool, 'query'>): Promise<Provider[]> {
  const { rows: [tables] } = await pool.query<{ deliveries: string | null; messages: string | null }>(
    "SELECT to_regclass('deliveries') AS deliveries, to_regclass('slack_messages') AS messages")
  const of = async (table: string) => (await pool.query<{ provider: Provider }>(`SELECT DISTINCT provider FROM ${table}`)).rows.map((r) => r.provider)
  return [...new Set([...(tables?.messages ? await of('slack_messages') : []), ...(tables?.deliveries ? await of('deliveries') : [])])].sort()
}
