import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PrheraldError } from '../../src/errors.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { postgresMigrateUp, postgresMigrationStatus, readPostgresMigrations } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool, type PostgresPool } from '../../src/store/postgres-pool.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let database: TestDatabase
let schema: TestDatabase
let pool: PostgresPool
beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())
beforeEach(async () => {
  schema = await createTestSchema(database)
  pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
})
afterEach(async () => {
  await pool.end()
  await schema.drop()
})

const columns = async (table: string) => (await pool.query<{ column_name: string }>(
  'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position', [table],
)).rows.map((r) => r.column_name)

describe('PostgreSQL migrations', () => {
  it('applies every migration once, in order, and records them', async () => {
    const all = readPostgresMigrations()
    expect(all.length).toBeGreaterThan(0)
    expect((await postgresMigrationStatus(pool)).every((s) => s.appliedAt === undefined)).toBe(true)
    expect((await postgresMigrateUp(pool)).map((m) => m.version)).toEqual(all.map((m) => m.version))
    expect(await postgresMigrateUp(pool)).toEqual([])
    expect((await postgresMigrationStatus(pool)).every((s) => s.appliedAt instanceof Date)).toBe(true)
  })

  it('gives every table of the migrated SQLite schema the same columns', async () => {
    await postgresMigrateUp(pool)
    // The stores must agree on what is kept: a migration line one engine has and the other lacks fails here.
    const dir = makeTempDir()
    try {
      const sqlite = openDatabase(join(dir.path, 'prherald.db'))
      migrateUp(sqlite)
      const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()
        .map((r) => (r as { name: string }).name).sort()
      expect(tables).toEqual(expect.arrayContaining(['deliveries', 'slack_messages']))
      const postgresTables = (await pool.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name")).rows.map((r) => r.table_name)
      expect(postgresTables).toEqual(tables)
      for (const table of tables) {
        const sqliteColumns = sqlite.prepare('SELECT name FROM pragma_table_info(?)').all(table).map((r) => (r as { name: string }).name)
        expect({ table, columns: [...await columns(table)].sort() }).toEqual({ table, columns: sqliteColumns.sort() })
      }
      sqlite.close()
    } finally {
      dir.remove()
    }
  })

  it('two processes migrating at once apply each migration once, without an error', async () => {
    const other = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
    try {
      const [a, b] = await Promise.all([postgresMigrateUp(pool), postgresMigrateUp(other)])
      expect([...a, ...b].map((m) => m.version).sort()).toEqual(readPostgresMigrations().map((m) => m.version))
      expect(Number((await pool.query('SELECT count(*) AS n FROM schema_migrations')).rows[0].n)).toBe(readPostgresMigrations().length)
    } finally {
      await other.end()
    }
  })

  it('a failing migration is a typed error and leaves the database at the previous one', async () => {
    const dir = makeTempDir()
    try {
      mkdirSync(join(dir.path, 'pg'))
      writeFileSync(join(dir.path, 'pg', '0001_first.sql'), 'CREATE TABLE first (id INTEGER);')
      writeFileSync(join(dir.path, 'pg', '0002_broken.sql'), 'CREATE TABLE half (id INTEGER); CREATE TABLE oops (;')
      const migrations = readPostgresMigrations(join(dir.path, 'pg'))
      const error = await postgresMigrateUp(pool, migrations).then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(PrheraldError)
      expect(error).toMatchObject({ code: 'migration', message: expect.stringContaining('postgres/0002_broken') })
      expect((await postgresMigrationStatus(pool, migrations)).map((s) => s.appliedAt !== undefined)).toEqual([true, false])
      expect(await columns('half')).toEqual([]) // rolled back whole
      // The pool still works: the lock was released and the connection returned.
      expect(await postgresMigrateUp(pool, migrations.slice(0, 1))).toEqual([])
    } finally {
      dir.remove()
    }
  })
})
