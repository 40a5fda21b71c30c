import { redactUrl } from '../log/redact-url.ts'
import { PrheraldError } from '../errors.ts'
import { databaseReport, type DatabaseReport } from './inspect-database.ts'
import { openPostgresPool } from './postgres-pool.ts'
import { readPostgresMigrations } from './postgres-migrations.ts'
import { scrubPostgresSecrets } from './postgres-url.ts'

/**
 * inspect-database.ts for PostgreSQL, for prherald-doctor: reads only (no table is created, nothing
 * migrated), through one connection. A database nobody has migrated yet reports every migration pending.
 */
export async function inspectPostgresDatabase(url: string, secrets: readonly string[]): Promise<DatabaseReport> {
  const pool = await openPostgresPool({ url, secrets, maxConnections: 1, onIdleError: () => {} })
  try {
    const { rows: [found] } = await pool.query<Record<string, string | null>>(
      "SELECT to_regclass('schema_migrations') AS schema_migrations, to_regclass('slack_messages') AS slack_messages, to_regclass('deliveries') AS deliveries")
    const tables = new Set(Object.entries(found ?? {}).filter(([, oid]) => oid !== null).map(([name]) => name))
    return await databaseReport({ tables, rows: async <Row>(sql: string) => (await pool.query(sql)).rows as Row[] }, readPostgresMigrations())
  } catch (cause) {
    throw new PrheraldError('database', `cannot read the database at ${redactUrl(url)}: ${scrubPostgresSecrets((cause as Error).message, url, secrets)}`, {
      fix: 'check that the user may read the database and that it is a prherald database',
    })
  } finally {
    await pool.end()
  }
}
