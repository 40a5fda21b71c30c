import { checkOut } from './check-out.ts'
import { join } from 'node:path'
import { PrheraldError } from '../errors.ts'
import { packageRoot } from '../package-root.ts'
import { readMigrations, type Migration, type MigrationState } from './migrations.ts'
import type { PostgresPool } from './postgres-pool.ts'

/** The migrations (one source with SQLite's, src/store/dialect.ts) as PostgreSQL runs them. */
export function readPostgresMigrations(dir = join(packageRoot(), 'migrations')): Migration[] {
  return readMigrations(dir, 'postgres')
}

// Several replicas may start at once against one database; a session advisory lock makes the second wait
// for the first and then find nothing left to do. The key is arbitrary but fixed ("prh" + "mig").
const MIGRATION_LOCK = 0x707268_6d6967

const ENSURE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version TEXT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`

async function appliedVersions(db: Pick<PostgresPool, 'query'>): Promise<Map<string, number>> {
  await db.query(ENSURE_TABLE)
  const { rows } = await db.query<{ version: string; applied_at: string }>('SELECT version, applied_at FROM schema_migrations')
  return new Map(rows.map((r) => [r.version, Number(r.applied_at)]))
}

export async function postgresMigrationStatus(pool: PostgresPool, migrations = readPostgresMigrations()): Promise<MigrationState[]> {
  const applied = await appliedVersions(pool)
  return migrations.map((m) => {
    const at = applied.get(m.version)
    return { version: m.version, name: m.name, appliedAt: at === undefined ? undefined : new Date(at) }
  })
}

/** Applies pending migrations in order, each in its own transaction (DDL is transactional here); returns the ones applied. */
export async function postgresMigrateUp(pool: PostgresPool, migrations = readPostgresMigrations(), now = Date.now, onApplied?: (m: Migration) => void): Promise<Migration[]> {
  const { client, release } = await checkOut(pool)
  const appliedNow: Migration[] = []
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    const applied = await appliedVersions(client)
    for (const m of migrations.filter((x) => !applied.has(x.version))) {
      try {
        await client.query('BEGIN')
        await client.query(m.sql)
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, now()])
        await client.query('COMMIT')
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw new PrheraldError('migration', `migration postgres/${m.version}_${m.name} failed: ${(cause as Error).message}`, {
          cause,
          fix: 'the database was left at the previous migration; fix the file or the database, then run prherald-migrate up',
        })
      }
      appliedNow.push(m)
      onApplied?.(m)
    }
  } finally {
    // A session lock outlives the call on a pooled connection: if unlocking fails, destroy the connection.
    const unlocked = await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).then(() => true, () => false)
    release(!unlocked)
  }
  return appliedNow
}
