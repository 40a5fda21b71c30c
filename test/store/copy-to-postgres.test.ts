import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { isPrheraldError } from '../../src/errors.ts'
import { copyToPostgres } from '../../src/store/copy-to-postgres.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { openPostgresPool, type PostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import { toPostgresValue } from '../../src/store/to-postgres-value.ts'
import { startFakeSlack } from '../helpers/fake-slack.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'

/**
 * `prherald-migrate copy`: a SQLite database written by the real server from signed deliveries (plus a
 * pending delivery and a post intent, the rows a crash leaves) is copied into the test run's real
 * PostgreSQL, compared row by row, and read back through the PostgreSQL store.
 */
const PRS = 12
let source: ReturnType<typeof makeTempDir>
let database: TestDatabase
let schema: TestDatabase
let pool: PostgresPool
let work: ReturnType<typeof makeTempDir>

beforeAll(async () => {
  database = await createTestDatabase()
  source = makeTempDir()
  const slack = await startFakeSlack()
  writeConfig(source.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
  const service = await startPrherald(source.path, testEnv(source.path, 'github', { SLACK_API_URL: slack.url }))
  try {
    for (let n = 1; n <= PRS; n++) {
      expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', n) })).status).toBe(200)
      if (n % 3 === 0) expect((await deliver(service.url, 'github', { event: 'pull_request_review', payload: review('approved', n, 'carol') })).status).toBe(200)
    }
    expect(await service.settle(20_000)).toBe(true)
  } finally {
    await service.stop()
    await slack.close()
  }
  // What a crash leaves behind: a delivery acknowledged but not applied, and a post whose outcome is unknown.
  const store = createSqliteStore(openDatabase(join(source.path, 'prherald.db')))
  await store.recordDelivery({ provider: 'github', deliveryId: 'pending-1', prKey: 'github:Codertocat/Hello-World#99', event: { kind: 'x' } as never })
  await store.recordPostIntent({
    provider: 'github', repository: 'Codertocat/Hello-World', prNumber: 99, channel: 'C0000000001', marker: 'pending-1',
    mentions: ['<@U1>'], state: 'open', lifecycle: {} as never, lastDeliveryId: 'pending-1', reactions: [], createdAt: 1_764_000_000_123,
  })
  await store.close()
}, 60_000)
afterAll(async () => {
  source.remove()
  await database.drop()
})
beforeEach(async () => {
  work = makeTempDir()
  // Each test copies its own copy of the file: the copy holds the file's server lock, and a test may change it.
  copyFileSync(join(source.path, 'prherald.db'), join(work.path, 'prherald.db'))
  schema = await createTestSchema(database)
  pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
})
afterEach(async () => {
  await pool.end()
  await schema.drop()
  work.remove()
})

const file = () => join(work.path, 'prherald.db')
const copyCli = (to = schema.url) => runCliAsync('migrate', ['copy', '--from', `file:${file()}`, '--to', to], { PGCONNECT_TIMEOUT: '10' })
const sqliteTables = (db: Database.Database) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name")
  .all().map((r) => (r as { name: string }).name)
const columnsOf = (db: Database.Database, table: string) => db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(table).map((r) => (r as { name: string }).name)

describe('prherald-migrate copy', () => {
  it('copies every table row by row, prints the counts, and the PostgreSQL store reads back what the SQLite one did', async () => {
    const result = await copyCli()
    // Not a terminal: the progress is plain lines on stderr, the last one when the copy is done.
    const total = (result.stdout.match(/copy finished: (\d+) rows/) ?? [])[1]
    expect(result.stderr).toBe(`copying: ${total}/${total} rows (100%), about 0 s left\n`)
    expect(result.status).toBe(0)
    const db = new Database(file(), { readonly: true })
    try {
      const tables = sqliteTables(db)
      expect(tables).toEqual(expect.arrayContaining(['slack_messages', 'deliveries', 'meta', 'post_intents', 'pacing_budgets']))
      const counts = Object.fromEntries(tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]))
      expect(counts.slack_messages).toBe(PRS)
      expect(counts.deliveries).toBe(PRS + PRS / 3 + 1)
      for (const t of tables) expect(result.stdout).toMatch(new RegExp(`^copied  ${t} +${counts[t]} rows$`, 'm'))
      for (const table of tables) {
        const columns = columnsOf(db, table).map((c) => `"${c}"`).join(', ')
        // Sorted here, not by ORDER BY: SQLite and PostgreSQL sort text differently.
        const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort()
        const want = db.prepare(`SELECT ${columns} FROM "${table}"`).raw().all() as unknown[][]
        const answer = await pool.query({ text: `SELECT ${columns} FROM "${table}"`, rowMode: 'array' })
        // pg hands BIGINT (type 20) back as text, SQLite as a number: compare the values, not JavaScript types.
        const got = (answer.rows as unknown[][]).map((r) => r.map((v, i) => (answer.fields[i]!.dataTypeID === 20 && v !== null ? Number(v) : v)))
        expect({ table, rows: sorted(got) }).toEqual({ table, rows: sorted(want) })
      }
    } finally {
      db.close()
    }

    // Served by the PostgreSQL store: the same answers the SQLite store gives.
    const sqlite = createSqliteStore(openDatabase(file()))
    const postgres = createPostgresStore({ pool: await openPostgresPool({ url: schema.url, onIdleError: () => {} }) })
    try {
      for (let n = 1; n <= PRS; n++) {
        const pr = { provider: 'github' as const, repository: 'Codertocat/Hello-World', prNumber: n }
        expect(await postgres.findMessages(pr)).toEqual(await sqlite.findMessages(pr))
      }
      expect(await postgres.pendingDeliveries()).toEqual(await sqlite.pendingDeliveries())
      expect(await postgres.postIntents()).toEqual(await sqlite.postIntents())
      expect(await postgres.countMessages()).toBe(PRS)
      // Applied ids still recognise a redelivery; a new delivery is numbered after every copied one.
      const applied = (await pool.query<{ delivery_id: string }>('SELECT delivery_id FROM deliveries WHERE applied_at IS NOT NULL LIMIT 1')).rows[0]!
      expect(await postgres.recordDelivery({ provider: 'github', deliveryId: applied.delivery_id, prKey: 'x', event: {} as never })).toBe(false)
      expect(await postgres.recordDelivery({ provider: 'github', deliveryId: 'after-the-copy', prKey: 'x', event: {} as never })).toBe(true)
      const seqs = (await postgres.pendingDeliveries()).map((d) => d.seq)
      expect(seqs.at(-1)).toBeGreaterThan(Math.max(...(await sqlite.pendingDeliveries()).map((d) => d.seq)))
    } finally {
      await sqlite.close()
      await postgres.close()
    }
  })

  it('refuses a target that already holds data, and leaves it as it was', async () => {
    expect((await copyCli()).status).toBe(0)
    await pool.query("DELETE FROM deliveries WHERE delivery_id = 'pending-1'")
    const again = await copyCli()
    expect(again.status).toBe(1)
    expect(again.stderr).toMatch(/the PostgreSQL database already holds data: slack_messages \(12 rows\), deliveries \(16 rows\), post_intents \(1 rows\)(, [a-z_]+ \(\d+ rows\))*; nothing was copied/)
    expect(again.stderr).toMatch(/fix: copy into a new, empty database/)
    expect(again.stderr).not.toContain(new URL(schema.url).password)
    expect(Number((await pool.query('SELECT count(*) AS n FROM deliveries')).rows[0].n)).toBe(16)
  })

  it('refuses while a server holds the SQLite file, and without a PostgreSQL target', async () => {
    const slack = await startFakeSlack()
    writeConfig(work.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
    const service = await startPrherald(work.path, testEnv(work.path, 'github', { SLACK_API_URL: slack.url }))
    try {
      const busy = await copyCli()
      expect(busy.status).toBe(1)
      expect(busy.stderr).toMatch(/another prherald-server is using the database/)
    } finally {
      await service.stop()
      await slack.close()
    }
    const noTarget = await runCliAsync('migrate', ['copy', '--from', `file:${file()}`, '--to', `file:${file()}`], {})
    expect(noTarget.status).toBe(1)
    expect(noTarget.stderr).toMatch(/--to file:.* is not a PostgreSQL URL/)
    expect(Number((await pool.query("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()")).rows[0].n)).toBe(0)
  })

  it('copies a table added later, converting SQLite integers to the PostgreSQL column types, in one transaction', async () => {
    const db = openDatabase(file())
    db.exec('CREATE TABLE later_table (id INTEGER PRIMARY KEY, seen_at INTEGER NOT NULL, muted INTEGER NOT NULL, note TEXT)')
    const insert = db.prepare('INSERT INTO later_table (id, seen_at, muted, note) VALUES (?, ?, ?, ?)')
    for (let i = 1; i <= 30; i++) insert.run(i, 1_764_000_000_000 + i, i % 2, i === 7 ? null : `note ${i}`)
    await pool.query('CREATE TABLE later_table (id BIGINT PRIMARY KEY, seen_at TIMESTAMPTZ NOT NULL, muted BOOLEAN NOT NULL, note TEXT)')
    try {
      const copied = await copyToPostgres({ sqlite: db, pool, batchRows: 7 })
      expect(copied.find((c) => c.table === 'later_table')).toEqual({ table: 'later_table', rows: 30 })
      const rows = (await pool.query<{ id: string; seen_at: Date; muted: boolean; note: string | null }>('SELECT * FROM later_table ORDER BY id')).rows
      expect(rows).toHaveLength(30)
      expect(rows[6]).toEqual({ id: '7', seen_at: new Date(1_764_000_000_007), muted: true, note: null })
      expect(rows[9]).toEqual({ id: '10', seen_at: new Date(1_764_000_000_010), muted: false, note: 'note 10' })

      // A value the target cannot hold rolls the whole copy back: nothing is half copied.
      const tables = (await pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'")).rows
      await pool.query(`TRUNCATE ${tables.map((t) => `"${t.table_name}"`).join(', ')}`)
      db.prepare('UPDATE later_table SET muted = 2 WHERE id = 30').run()
      const error = await copyToPostgres({ sqlite: db, pool }).catch((e: unknown) => e)
      expect(isPrheraldError(error, 'migration') && error.message).toMatch(/cannot copy later_table\.muted: "2" is not 0 or 1/)
      expect(Number((await pool.query('SELECT count(*) AS n FROM slack_messages')).rows[0].n)).toBe(0)
    } finally {
      db.close()
    }
  })
})

describe('toPostgresValue', () => {
  const column = (type: string) => ({ type, identity: null })
  it('converts by the target column type and names the column it cannot convert', () => {
    expect(toPostgresValue(1_764_000_000_000, column('bigint'), 't.c')).toBe(1_764_000_000_000)
    expect(toPostgresValue(1_764_000_000_000, column('timestamp with time zone'), 't.c')).toEqual(new Date(1_764_000_000_000))
    expect(toPostgresValue(0, column('boolean'), 't.c')).toBe(false)
    expect(toPostgresValue('["a"]', column('jsonb'), 't.c')).toBe('["a"]')
    expect(toPostgresValue(42, column('text'), 't.c')).toBe('42')
    expect(toPostgresValue(null, column('bigint'), 't.c')).toBeNull()
    expect(() => toPostgresValue('soon', column('bigint'), 'deliveries.applied_at')).toThrow(/cannot copy deliveries\.applied_at: "soon" is not an integer/)
    expect(() => toPostgresValue(1.5, column('integer'), 't.c')).toThrow(/not an integer/)
  })
})
