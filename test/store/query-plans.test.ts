import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { Statement } from '../../src/store/dialect.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase, type SqliteDatabase } from '../../src/store/open-database.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool, type PostgresPool } from '../../src/store/postgres-pool.ts'
import { queries } from '../../src/store/queries.ts'
import { personalQueries } from '../../src/store/personal-queries.ts'
import { talkBackQueries } from '../../src/store/talk-back-queries.ts'
import { replyCommentQueries } from '../../src/store/reply-comment-store.ts'
import { reviewFormQueries } from '../../src/store/review-form-store.ts'
import { actionCountQueries } from '../../src/store/action-count-store.ts'
import { turnaroundQueries } from '../../src/store/turnaround-store.ts'
import { reminderQueries } from '../../src/store/reminder-store.ts'
import { assignmentQueries } from '../../src/store/assignment-store.ts'
import { weeklyPostQueries } from '../../src/store/weekly-post-store.ts'
import { BOUNDED, fillTables, fullScans, GROWING, type PlanEngine } from '../helpers/query-plans.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Every statement the stores run for a request or a job is planned on both engines against a database
 * holding a few thousand rows in every table, and none may read the whole of a table that grows with
 * history (GROWING): a year's history must not make a delivery, a click or a command slower.
 */
const all: Statement[] = [
  queries, personalQueries, talkBackQueries, replyCommentQueries, reviewFormQueries, actionCountQueries, turnaroundQueries, reminderQueries, assignmentQueries,
  weeklyPostQueries,
]
  .flatMap((table) => Object.values<Statement>(table))

/**
 * The statements allowed to read a growing table whole, each with why. Nothing serves a request from these.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  // prherald-doctor and the metrics' message count: once a scrape, a count is a count (an index-only scan).
  countMessages: 'a count of every row is the answer',
}

const ROWS = 3000

describe('every statement uses an index on a table that grows', () => {
  describe('SQLite (EXPLAIN QUERY PLAN)', () => {
    let dir: ReturnType<typeof makeTempDir>
    let db: SqliteDatabase
    beforeAll(async () => {
      dir = makeTempDir()
      db = openDatabase(join(dir.path, 'plans.db'))
      migrateUp(db)
      await fillTables(sqliteEngine(db), ROWS)
    })
    afterAll(() => {
      db.close()
      dir.remove()
    })

    it('finds the full scan it is built to find', async () => {
      expect(await scansOf(sqliteEngine(db), [
        'SELECT * FROM deliveries WHERE event = ?', 'SELECT * FROM deliveries WHERE provider = ? AND delivery_id = ?',
        // Through an alias, and a search on the host alone: every message of the host.
        'SELECT m.ts FROM slack_messages m WHERE m.provider = ? AND m.channel LIKE ?',
      ])).toEqual({ 0: ['deliveries'], 2: ['slack_messages'] })
    })

    it('plans no full scan of a growing table', async () => {
      expect(await scansOf(sqliteEngine(db), all.map((s) => s.sqlite))).toEqual({})
    })
  })

  describe('PostgreSQL (EXPLAIN (GENERIC_PLAN) with enable_seqscan off)', () => {
    let database: TestDatabase
    let pool: PostgresPool
    beforeAll(async () => {
      database = await createTestDatabase()
      // One connection: the SET below holds for every EXPLAIN.
      pool = await openPostgresPool({ url: database.url, onIdleError: () => {}, maxConnections: 1 })
      await postgresMigrateUp(pool)
      await fillTables(postgresEngine(pool), ROWS)
      await pool.query('ANALYZE')
      // A table of a few thousand rows is cheaper to read whole than through an index, so the planner would
      // scan it whatever the indexes; off, it still scans where no index can serve the statement.
      await pool.query('SET enable_seqscan = off')
    })
    afterAll(async () => {
      await pool?.end()
      await database?.drop()
    })

    it('finds the full scan it is built to find', async () => {
      expect(await scansOf(postgresEngine(pool), ['SELECT * FROM deliveries WHERE event = $1', 'SELECT * FROM deliveries WHERE provider = $1 AND delivery_id = $2']))
        .toEqual({ 0: ['deliveries'] })
    })

    it('plans no full scan of a growing table', async () => {
      expect(await scansOf(postgresEngine(pool), all.map((s) => s.postgres))).toEqual({})
    })
  })

  it('names every table the migrations create as growing or bounded, and no other', async () => {
    const dir = makeTempDir()
    const db = openDatabase(join(dir.path, 'names.db'))
    try {
      migrateUp(db)
      const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[])
      const named = [...GROWING, ...Object.keys(BOUNDED)]
      expect({ unnamed: [...tables].filter((t) => !named.includes(t)), gone: named.filter((t) => !tables.has(t)) }).toEqual({ unnamed: [], gone: [] })
    } finally {
      db.close()
      dir.remove()
    }
  })
})

/** The growing tables each statement reads whole, by its name (or index), leaving out ALLOWED's. */
async function scansOf(engine: PlanEngine, sqls: readonly string[]): Promise<Record<string, string[]>> {
  const indexes = await engine.indexes()
  const scans: Record<string, string[]> = {}
  for (const [i, sql] of sqls.entries()) {
    const name = all.find((s) => s[engine.dialect] === sql)?.name ?? String(i)
    const tables = fullScans(await engine.plan(sql), engine.dialect, indexes, sql)
    if (tables.length > 0 && !(name in ALLOWED)) scans[name] = tables
  }
  return scans
}

function sqliteEngine(db: SqliteDatabase): PlanEngine {
  return {
    dialect: 'sqlite',
    columns: async (table) => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; type: string }[])
      .map((c) => ({ name: c.name, numeric: /INT|REAL/i.test(c.type) })),
    tables: async () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[],
    insert: async (sql, params) => { db.prepare(sql).run(...params) },
    indexes: async () => (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string; sql: string }[])
      .map((i) => ({ name: i.name, leading: /\(\s*(\w+)/.exec(i.sql)?.[1] ?? '', partial: / WHERE /i.test(i.sql) })),
    // Every parameter NULL: SQLite's plan does not depend on the values (no ANALYZE statistics here, as in production).
    plan: async (sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from(sql.matchAll(/\?/g), () => null)) as { detail: string }[])
      .map((r) => r.detail).join('\n'),
  }
}

function postgresEngine(pool: PostgresPool): PlanEngine {
  return {
    dialect: 'postgres',
    columns: async (table) => (await pool.query<{ column_name: string; data_type: string; is_identity: string }>(
      'SELECT column_name, data_type, is_identity FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position', [table])).rows
      .filter((c) => c.is_identity !== 'YES')
      .map((c) => ({ name: c.column_name, numeric: /int|double|numeric/.test(c.data_type) })),
    tables: async () => (await pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")).rows.map((r) => r.table_name),
    insert: async (sql, params) => { await pool.query(sql, [...params]) },
    indexes: async () => (await pool.query<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()')).rows
      .map((i) => ({ name: i.indexname, leading: /\(\s*(\w+)/.exec(i.indexdef)?.[1] ?? '', partial: / WHERE /i.test(i.indexdef) })),
    // "Generate a generic plan for the statement ... The statement can contain parameter placeholders like $1"
    // (PostgreSQL 16+, EXPLAIN's GENERIC_PLAN option, postgresql.org/docs/current/sql-explain.html).
    plan: async (sql) => JSON.stringify((await pool.query(`EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${sql}`)).rows[0]['QUERY PLAN']),
  }
}
