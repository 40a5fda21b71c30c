import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { migrateUp, readMigrations, type Migration } from '../../src/store/migrations.ts'
import { openDatabase, type SqliteDatabase } from '../../src/store/open-database.ts'
import { postgresMigrateUp, readPostgresMigrations } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool, type PostgresPool } from '../../src/store/postgres-pool.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The migrations have one source (migrations/*.sql, src/store/dialect.ts). test/fixtures/migrations-0011/
 * holds the two trees they replaced, as they stood at 0011: a database made by them (the release before)
 * must be taken for up to date, a database left at any of their versions must upgrade without reapplying
 * anything, and either way each engine must end with the schema those trees made.
 */
const legacy = join(import.meta.dirname, '../fixtures/migrations-0011')
const legacySqlite = readMigrations(join(legacy, 'sqlite'))
const legacyPostgres = readMigrations(join(legacy, 'postgres'), 'postgres')
const versions = (ms: readonly Migration[]) => ms.map((m) => `${m.version}_${m.name}`)
// Migrations written after the two trees were replaced are not theirs to compare with.
const upToLegacy = (ms: readonly Migration[]) => ms.filter((m) => m.version <= '0011')
const sqliteMigrations = upToLegacy(readMigrations())
const postgresMigrations = upToLegacy(readPostgresMigrations())
const squash = (sql: string | null) => sql?.replace(/\s+/g, ' ')

function sqliteSchema(db: SqliteDatabase) {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
  return {
    tables: Object.fromEntries(tables.map(({ name }) => [name, db.prepare('SELECT * FROM pragma_table_xinfo(?)').all(name)])),
    indexes: (db.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all() as Array<{ sql: string | null }>)
      .map((i) => ({ ...i, sql: squash(i.sql) })),
    migrations: db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
  }
}

describe('one migration source: SQLite', () => {
  const withDatabase = <T>(run: (db: SqliteDatabase) => T): T => {
    const dir = makeTempDir()
    const db = openDatabase(join(dir.path, 'prherald.db'))
    try {
      return run(db)
    } finally {
      db.close()
      dir.remove()
    }
  }
  const before = withDatabase((db) => (migrateUp(db, legacySqlite), sqliteSchema(db)))

  it('lists the same versions as the SQLite tree did, and makes the same schema', () => {
    expect(versions(sqliteMigrations)).toEqual(versions(legacySqlite))
    expect(withDatabase((db) => (migrateUp(db, sqliteMigrations), sqliteSchema(db)))).toEqual(before)
  })

  it.each(legacySqlite.map((m, i) => [m.version, i + 1] as const))('upgrades a database left at %s without reapplying anything', (_, applied) => {
    withDatabase((db) => {
      migrateUp(db, legacySqlite.slice(0, applied))
      expect(versions(migrateUp(db, sqliteMigrations))).toEqual(versions(legacySqlite.slice(applied)))
      expect(sqliteSchema(db)).toEqual(before)
    })
  })
})

describe('one migration source: PostgreSQL', () => {
  let database: TestDatabase
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(() => database.drop())

  const withSchema = async <T>(run: (pool: PostgresPool) => Promise<T>): Promise<T> => {
    const schema = await createTestSchema(database)
    const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
    try {
      return await run(pool)
    } finally {
      await pool.end()
      await schema.drop()
    }
  }
  // Each test has a schema of its own: its name is taken out of the definitions that print it.
  const postgresSchema = async (pool: PostgresPool) => {
    const rows = async (sql: string) => (await pool.query(sql)).rows
    const schema = String((await rows('SELECT current_schema() AS s'))[0].s)
    const unqualified = (r: Record<string, unknown>) => JSON.parse(JSON.stringify(r).replaceAll(`${schema}.`, ''))
    return {
      columns: await rows(`SELECT table_name, ordinal_position, column_name, data_type, is_nullable, column_default, identity_generation
        FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`),
      indexes: (await rows('SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname')).map(unqualified),
      constraints: await rows(`SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE connamespace = current_schema()::regnamespace ORDER BY conname`),
      migrations: await rows('SELECT version, name FROM schema_migrations ORDER BY version'),
    }
  }
  let before: Awaited<ReturnType<typeof postgresSchema>>
  beforeAll(async () => { before = await withSchema(async (pool) => (await postgresMigrateUp(pool, legacyPostgres), postgresSchema(pool))) })

  it('lists the same versions as the PostgreSQL tree did (no 0004), and makes the same schema', async () => {
    expect(versions(postgresMigrations)).toEqual(versions(legacyPostgres))
    expect(await withSchema(async (pool) => (await postgresMigrateUp(pool, postgresMigrations), postgresSchema(pool)))).toEqual(before)
  })

  it.each(legacyPostgres.map((m, i) => [m.version, i + 1] as const))('upgrades a database left at %s without reapplying anything', async (_, applied) => {
    await withSchema(async (pool) => {
      await postgresMigrateUp(pool, legacyPostgres.slice(0, applied))
      expect(versions(await postgresMigrateUp(pool, postgresMigrations))).toEqual(versions(legacyPostgres.slice(applied)))
      expect(await postgresSchema(pool)).toEqual(before)
    })
  })
})
