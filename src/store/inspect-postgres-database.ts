import { redactUrl } from '../log/redact-url.ts'
import { PrheraldError } from '../errors.ts'
import { PARKED_MIGRATION, type DatabaseReport } from './inspect-database.ts'
import { openPostgresPool } from './postgres-pool.ts'
import { readPostgresMigrations } from './postgres-migrations.ts'
import { postgresDatabaseHosts } from './postgres-provider.ts'
import { scrubPostgresSecrets } from './postgres-url.ts'

/**
 * inspect-database.ts for PostgreSQL, for prherald-doctor: reads only (no table is created, nothing
 * migrated), through one connection. A database nobody has migrated yet reports every migration pending.
 */
export async function inspectPostgresDatabase(url: string, secrets: readonly string[]): Promise<DatabaseReport> {
  const pool = await openPostgresPool({ url, secrets, maxConnections: 1, onIdleError: () => {} })
  try {
    const { rows: [tables] } = await pool.query<Record<'migrations' | 'messages' | 'deliveries', string | null>>(
      "SELECT to_regclass('schema_migrations') AS migrations, to_regclass('slack_messages') AS messages, to_regclass('deliveries') AS deliveries")
    const count = async (table: string | null | undefined, sql: string) => (table ? Number((await pool.query<{ n: string }>(sql)).rows[0]?.n ?? 0) : undefined)
    const known = readPostgresMigrations().map((m) => `${m.version}_${m.name}`)
    const appliedVersions = tables?.migrations
      ? (await pool.query<{ version: string; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version')).rows.map((r) => `${r.version}_${r.name}`)
      : []
    return {
      migrations: {
        applied: appliedVersions.filter((v) => known.includes(v)),
        pending: known.filter((v) => !appliedVersions.includes(v)),
        unknown: appliedVersions.filter((v) => !known.includes(v)),
      },
      messages: await count(tables?.messages, 'SELECT count(*) AS n FROM slack_messages'),
      withoutMessage: await count(tables?.messages, "SELECT count(*) AS n FROM slack_messages WHERE ts = ''"),
      waiting: await count(tables?.deliveries, 'SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL AND parked_at IS NULL'),
      parked: appliedVersions.includes(PARKED_MIGRATION)
        ? await count(tables?.deliveries, 'SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL AND parked_at IS NOT NULL')
        : undefined,
      hosts: await postgresDatabaseHosts(pool),
    }
  } catch (cause) {
    throw new PrheraldError('database', `cannot read the database at ${redactUrl(url)}: ${scrubPostgresSecrets((cause as Error).message, url, secrets)}`, {
      fix: 'check that the user may read the database and that it is a prherald database',
    })
  } finally {
    await pool.end()
  }
}
