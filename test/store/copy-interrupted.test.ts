import { afterAll, beforeAll, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { packageRoot } from '../../src/package-root.ts'
import { openPostgresPool, type PostgresPool } from '../../src/store/postgres-pool.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Ctrl-C during `prherald-migrate copy` (docs/scaling.md): the copy is one transaction, so a copy stopped
 * half-way leaves the PostgreSQL database as empty as it was, and the same command run again copies everything.
 * The source holds enough delivery marks that the copy is still running when the test sees its transaction open.
 */
const MARKS = 50_000
let dir: ReturnType<typeof makeTempDir>
let database: TestDatabase
let pool: PostgresPool

beforeAll(async () => {
  dir = makeTempDir()
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  const insert = db.prepare('INSERT INTO deliveries (provider, delivery_id, pr_key, received_at, applied_at) VALUES (?, ?, ?, ?, ?)')
  db.transaction(() => {
    for (let i = 0; i < MARKS; i++) insert.run('github', `mark-${i}`, `github:org/repo#${i % 500}`, 1_764_000_000_000 + i, 1_764_000_000_050 + i)
  })()
  db.close()
  database = await createTestDatabase()
  pool = await openPostgresPool({ url: database.url, onIdleError: () => {} })
}, 60_000)
afterAll(async () => {
  await pool?.end()
  await database?.drop()
  dir?.remove()
})

const args = () => ['copy', '--from', `file:${join(dir.path, 'prherald.db')}`, '--to', database.url]

/** The copy's own connections with a transaction open: it has begun writing and not committed. */
async function copyInTransaction(): Promise<boolean> {
  const { rows } = await pool.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL AND state <> 'idle'")
  return Number(rows[0]!.n) > 0
}

it('Ctrl-C half-way leaves the target empty, and the command run again copies every row', async () => {
  const child = spawn(process.execPath, [join(packageRoot(), 'dist/src/cli/migrate.js'), ...args()], {
    env: { PATH: process.env.PATH, PGCONNECT_TIMEOUT: '10' }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])))
  let running = false
  for (let tries = 0; tries < 1000 && !running && child.exitCode === null; tries++) {
    running = await copyInTransaction()
    if (!running) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  expect(running, output).toBe(true)
  child.kill('SIGINT')
  const [code, signal] = await exited
  // Stopped by the interrupt, before its summary: not a copy that finished first.
  expect({ code, signal }).not.toEqual({ code: 0, signal: null })
  expect(output).not.toContain('copy finished')

  // Nothing of the copy is left: not a table's rows, not a half-made schema.
  const tables = await pool.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'deliveries'")
  const left = tables.rows.length === 0 ? 0 : Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM deliveries')).rows[0]!.n)
  expect(left).toBe(0)

  const again = await runCliAsync('migrate', args(), { PGCONNECT_TIMEOUT: '10' })
  expect(again.stderr).not.toMatch(/already holds data/)
  expect(again.status).toBe(0)
  expect(again.stdout).toMatch(new RegExp(`copied  deliveries\\s+${MARKS} rows`))
  expect(Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM deliveries')).rows[0]!.n)).toBe(MARKS)
}, 90_000)
