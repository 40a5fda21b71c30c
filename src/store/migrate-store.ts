import { existsSync } from 'node:fs'
import type { Settings } from '../config/settings.ts'
import { databaseSecrets } from './database-secrets.ts'
import { migrateUp, migrationStatus, type Migration, type MigrationState } from './migrations.ts'
import { openDatabase } from './open-database.ts'
import type { PostgresPool } from './postgres-pool.ts'
import { queries } from './queries.ts'

type Target = Pick<Settings, 'database'>
type Env = Record<string, string | undefined>

// The PostgreSQL modules are loaded only for a PostgreSQL URL: the driver is not loaded for a SQLite file.
async function withPostgres<T>(url: string, env: Env, run: (pool: PostgresPool) => Promise<T>): Promise<T> {
  const { openPostgresPool } = await import('./postgres-pool.ts')
  const pool = await openPostgresPool({ url, secrets: databaseSecrets(url, env), maxConnections: 2, onIdleError: () => {} })
  try {
    return await run(pool)
  } finally {
    await pool.end()
  }
}

/** prherald-migrate up, for either backend: applies pending migrations, telling `onApplied` of each. */
export async function migrateStore(settings: Target, env: Env = process.env, onApplied?: (m: Migration) => void): Promise<Migration[]> {
  const target = settings.database
  if (target.kind === 'postgres') {
    return withPostgres(target.url, env, async (pool) => {
      const { postgresMigrateUp } = await import('./postgres-migrations.ts')
      return postgresMigrateUp(pool, undefined, undefined, onApplied)
    })
  }
  const db = openDatabase(target.path)
  try {
    return migrateUp(db, undefined, undefined, onApplied)
  } finally {
    db.close()
  }
}

/**
 * prherald-migrate status, for either backend; undefined for a SQLite file that does not exist yet, which a
 * read-only command must not create (nor its directory).
 */
export async function storeMigrationStatus(settings: Target, env: Env = process.env): Promise<MigrationState[] | undefined> {
  const target = settings.database
  if (target.kind === 'postgres') {
    const { postgresMigrationStatus } = await import('./postgres-migrations.ts')
    return withPostgres(target.url, env, (pool) => postgresMigrationStatus(pool))
  }
  if (!existsSync(target.path)) return undefined
  const db = openDatabase(target.path)
  try {
    return migrationStatus(db)
  } finally {
    db.close()
  }
}

/**
 * prherald-migrate replay-parked without a server to hand the work to: clears the parked mark (and the
 * attempts) of every parked delivery. On PostgreSQL the replicas' next sweep takes them; on SQLite the next
 * start replays them. Resolves with how many were parked.
 */
export async function replayParkedInStore(settings: Target, env: Env = process.env): Promise<number> {
  const target = settings.database
  if (target.kind === 'postgres') {
    return withPostgres(target.url, env, async (pool) => (await pool.query(queries.replayParked.postgres)).rowCount ?? 0)
  }
  const db = openDatabase(target.path)
  try {
    migrateUp(db)
    return db.prepare(queries.replayParked.sqlite).run().changes
  } finally {
    db.close()
  }
}
