import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { forDialect, statement } from '../../src/store/dialect.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool, type PostgresPool } from '../../src/store/postgres-pool.ts'
import { queries } from '../../src/store/queries.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Every statement of src/store/queries.ts compiles on both engines against the migrated schema (the store
 * contract tests run them with data). SQLite prepares it; PostgreSQL's PREPARE parses and plans it and
 * infers each parameter's type, without running it.
 */
const all = Object.values(queries)
const placeholders = (sql: string) => sql.match(/\?/g)?.length ?? 0

describe('the queries module', () => {
  it('numbers each statement\'s parameters for pg as it has them for SQLite', () => {
    for (const s of all) {
      const numbered = [...s.postgres.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))
      expect({ name: s.name, numbered }).toEqual({ name: s.name, numbered: Array.from({ length: placeholders(s.sqlite) }, (_, i) => i + 1) })
    }
  })

  it('renders a dialect word and an engine-only line for each engine, and refuses an unknown word', () => {
    expect(statement('t', 'SELECT a FROM t WHERE b IN ({json_texts}) AND c = ? ORDER BY a{bytewise}')).toEqual({
      name: 't',
      sqlite: 'SELECT a FROM t WHERE b IN (SELECT value FROM json_each(?)) AND c = ? ORDER BY a',
      postgres: 'SELECT a FROM t WHERE b IN (SELECT json_array_elements_text(CAST($1 AS json))) AND c = $2 ORDER BY a COLLATE "C"',
    })
    const ddl = 'CREATE TABLE t (\n  --postgres: extra TEXT,\n  at {millis}\n);\n--sqlite: ALTER TABLE t ADD COLUMN x {real};'
    expect(forDialect(ddl, 'sqlite')).toBe('CREATE TABLE t (\n\n  at INTEGER\n);\nALTER TABLE t ADD COLUMN x REAL;')
    expect(forDialect(ddl, 'postgres')).toBe('CREATE TABLE t (\n  extra TEXT,\n  at BIGINT\n);\n')
    expect(() => forDialect('SELECT {nonsense}', 'sqlite')).toThrow('unknown dialect word {nonsense}')
  })

  it('every statement compiles on SQLite', () => {
    const dir = makeTempDir()
    const db = openDatabase(join(dir.path, 'prherald.db'))
    try {
      migrateUp(db)
      for (const s of all) expect(() => db.prepare(s.sqlite), s.name).not.toThrow()
    } finally {
      db.close()
      dir.remove()
    }
  })

  describe('on PostgreSQL', () => {
    let database: TestDatabase
    let pool: PostgresPool
    beforeAll(async () => {
      database = await createTestDatabase()
      pool = await openPostgresPool({ url: database.url, onIdleError: () => {} })
      await postgresMigrateUp(pool)
    })
    afterAll(async () => {
      await pool.end()
      await database.drop()
    })

    it('every statement compiles, with a type for each parameter', async () => {
      const client = await pool.connect()
      try {
        for (const s of all) {
          const error = await client.query(`PREPARE check_${s.name} AS ${s.postgres}`).then(() => undefined, (e: Error) => e.message)
          expect({ name: s.name, error }).toEqual({ name: s.name, error: undefined })
        }
        const prepared = await client.query<{ name: string; parameter_types: string[] }>('SELECT name, parameter_types::text[] FROM pg_prepared_statements')
        expect(prepared.rows.map((r) => r.name).sort()).toEqual(all.map((s) => `check_${s.name}`.toLowerCase()).sort())
        expect(prepared.rows.filter((r) => r.parameter_types.includes('unknown'))).toEqual([])
      } finally {
        await client.query('DEALLOCATE ALL')
        client.release()
      }
    })
  })
})
