import '../src/cli/require-supported-node.ts'
import { randomBytes, randomUUID } from 'node:crypto'
import { createWriteStream, statSync } from 'node:fs'
import { join } from 'node:path'
import { signBody } from '../src/hosts/verify-signature.ts'
import { createLogger } from '../src/log/logger.ts'
import { createProgress } from '../src/log/progress.ts'
import { runCleanup } from '../src/store/cleanup-job.ts'
import { migrateUp, readMigrations, type Migration } from '../src/store/migrations.ts'
import { openDatabase, type SqliteDatabase } from '../src/store/open-database.ts'
import { postgresMigrateUp, readPostgresMigrations } from '../src/store/postgres-migrations.ts'
import { openPostgresPool, type PostgresPool } from '../src/store/postgres-pool.ts'
import { createPostgresStore } from '../src/store/postgres-store.ts'
import { createSqliteStore } from '../src/store/sqlite-store.ts'
import type { Store } from '../src/store/store.ts'
import { minePullRequests, openPullRequests } from '../src/personal/pull-request-lists.ts'
import { openPullRequestsOf } from '../src/personal/open-pull-requests-of.ts'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { startPostgresServer, type PostgresServer } from '../test/helpers/postgres-server.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { testEnv, writeConfig } from '../test/helpers/start-prherald.ts'
import { openedPayload } from './correctness-burst.ts'
import {
  addExpiredMarks, buildHistory, historyRows, repositoryName, REVIEWER, STUCK_CHANNEL, type BulkTarget, type HistorySizes,
} from './history-generator.ts'
import { runLoad, type Delivery } from './load.ts'
import { cpuMs, killChildren, rssMiB, spawnListening } from './processes.ts'
import { queryOnce } from './query-once.ts'

/**
 * `npm run bench:history`: prherald on a database holding a year of a 300-engineer organisation's history
 * against the same measurements on an empty database, in the same run, on SQLite and on PostgreSQL
 * (docs/performance.md, "A year of history", explains the knobs, the method and the targets).
 */
const knob = (name: string, fallback: number) => Number(process.env[`HISTORY_${name}`] ?? fallback)
const sizes: HistorySizes = {
  repositories: knob('REPOSITORIES', 3000), pullRequests: knob('PRS', 200_000), open: knob('OPEN', 2000),
  deliveries: knob('DELIVERIES', 1_500_000), replies: knob('REPLIES', 300_000), dmPeople: knob('DM_PEOPLE', 400), linked: knob('LINKED', 150),
}
const EXPIRED = knob('EXPIRED', 100_000)
const BURST = knob('BURST', 3000)
const SAMPLES = knob('SAMPLES', 200)
/** Bursts per server: the figures are their medians (one burst's p99 moves by a third from run to run on the same database). */
const BURSTS = knob('BURSTS', 3)
const STORES = (process.env.HISTORY_STORES ?? 'sqlite,postgres').split(',').filter(Boolean)
const SECRET = 'bench-secret'
const PREVIOUS = '0052' // the migrations before this one are the previous release's schema
const DAY = 86_400_000
/** The config's `cleanup.message_ttl_days`: a year of messages (and their delivery marks) kept, what the history holds. */
const TTL_DAYS = 400

let stopping = false
process.once('SIGINT', () => {
  stopping = true
  console.error('\nbench:history: stopping (Ctrl-C); the temporary databases are removed')
})
const hardStop = setTimeout(() => {
  console.error('bench:history: over its time limit, giving up')
  killChildren()
  process.exit(2)
}, knob('TIMEOUT_SECONDS', 900) * 1000)
hardStop.unref()

const dir = makeTempDir('prherald-history-')
const slack = await startFakeSlack({ anyChannel: true })
const mappings: Record<string, Record<string, { channel: string }>> = { Codertocat: { 'Hello-World': { channel: 'C0000000001' } }, org: {} }
for (let r = 0; r < sizes.repositories; r++) mappings.org![repositoryName(r).slice(4)] = { channel: `C${String(r % 50).padStart(9, '0')}` }
writeConfig(dir.path, {
  git_provider: 'github', server: { log_format: 'json', log_level: 'info', shutdown_timeout_seconds: 2 }, mappings,
  users: { [REVIEWER.login]: REVIEWER.slackUser }, cleanup: { message_ttl_days: TTL_DAYS },
})
const people = new Map([['github', { users: { [REVIEWER.login]: REVIEWER.slackUser }, teams: {} }]]) as Parameters<typeof minePullRequests>[2]

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`
async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now()
  const value = await run()
  return [value, performance.now() - t]
}

/** One engine's database, at the previous release's schema or the current one. */
interface Database {
  target: BulkTarget
  migrate(previous: boolean): Promise<Migration[]>
  store(): Promise<Store>
  bytes(): Promise<number>
  /** What a year-old database has had done to it by then, after the bulk load (see each engine's). */
  settle(): Promise<void>
  url: string
  close(): Promise<void>
}

const previousOnly = (m: Migration) => m.version < PREVIOUS

function sqliteDatabase(name: string): Database {
  const path = join(dir.path, `${name}.db`)
  const db: SqliteDatabase = openDatabase(path)
  const prepared = new Map<string, ReturnType<SqliteDatabase['prepare']>>()
  return {
    url: `file:${path}`,
    target: {
      async insert(table, rows) {
        const sql = `INSERT INTO ${table.name} (${table.columns.map(([c]) => c).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`
        const statement = prepared.get(sql) ?? prepared.set(sql, db.prepare(sql)).get(sql)!
        db.transaction(() => { for (const row of rows) statement.run(...row) })()
      },
    },
    migrate: async (previous) => migrateUp(db, readMigrations().filter((m) => !previous || previousOnly(m))),
    store: async () => createSqliteStore(openDatabase(path)),
    // Nothing: SQLite gathers no statistics by itself, and prherald does not ask it to, so the history is read as it would be.
    settle: async () => {},
    bytes: async () => ['', '-wal'].reduce((total, suffix) => { try { return total + statSync(path + suffix).size } catch { return total } }, 0),
    close: async () => { db.close() },
  }
}

async function postgresDatabase(server: PostgresServer, name: string): Promise<Database> {
  const dbName = `history_${name}_${randomBytes(3).toString('hex')}`
  await queryOnce(server.adminUrl, `CREATE DATABASE ${dbName}`)
  const url = new URL(server.adminUrl)
  url.pathname = `/${dbName}`
  const pool: PostgresPool = await openPostgresPool({ url: url.toString(), onIdleError: () => {} })
  return {
    url: url.toString(),
    target: {
      // One statement per chunk: each column as one array, unnested into rows (pg sends a JS array as a PostgreSQL array).
      async insert(table, rows) {
        const columns = table.columns.map(([c, type], i) => `$${i + 1}::${type}[]`)
        await pool.query(`INSERT INTO ${table.name} (${table.columns.map(([c]) => c).join(', ')}) SELECT * FROM unnest(${columns.join(', ')})`,
          table.columns.map((_, i) => rows.map((row) => row[i])))
      },
    },
    migrate: (previous) => postgresMigrateUp(pool, readPostgresMigrations().filter((m) => !previous || previousOnly(m))),
    store: async () => createPostgresStore({ pool: await openPostgresPool({ url: url.toString(), onIdleError: () => {} }) }),
    // A year-old database has been vacuumed and analysed by autovacuum many times over; right after a bulk load of
    // millions of rows it has not, and its first autovacuum would run during the measurements.
    settle: async () => { await pool.query('VACUUM ANALYZE') },
    bytes: async () => Number((await pool.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n')).rows[0]!.n),
    async close() {
      await pool.end()
      await queryOnce(server.adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
    },
  }
}

interface Figures {
  migrateMs?: number
  bytesPerPr?: number
  startMs: number
  rss: number
  cpuUsPerDelivery: number
  ackP99: number
  mineP99: number
  knownReplyP99: number
  unknownReplyP99: number
  digestStuckMs: number
  digestAllMs: number
  cleanupMs: number
  cleanupStallMs: number
  quietStallMs: number
}

function signed(payload: unknown): Delivery {
  const body = Buffer.from(JSON.stringify(payload))
  return {
    body,
    headers: {
      'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(),
      'x-hub-signature-256': signBody(SECRET, body), 'user-agent': 'GitHub-Hookshot/bench',
    },
  }
}

/** The store's side of a request: each call `SAMPLES` times, its p99. */
async function storeFigures(store: Store): Promise<Pick<Figures, 'mineP99' | 'knownReplyP99' | 'unknownReplyP99' | 'digestStuckMs' | 'digestAllMs'>> {
  const mine: number[] = []
  const known: number[] = []
  const unknown: number[] = []
  const [rows, digestAllMs] = await timed(() => store.openMessages())
  const [, digestStuckMs] = await timed(async () => openPullRequests((await store.openMessages()).filter((r) => r.channel === STUCK_CHANNEL)))
  const someTs = rows.find((r) => r.channel === STUCK_CHANNEL)
  const message = someTs ? (await store.findMessages(someTs))[0] : undefined
  for (let i = 0; i < SAMPLES; i++) {
    // As /prherald mine and the Home tab read it: the person's open pull requests, through the people kept with them.
    mine.push((await timed(async () => minePullRequests(await openPullRequestsOf(store, people, REVIEWER.slackUser, new Set()), REVIEWER.slackUser, people, new Set(), Date.now())))[1])
    known.push((await timed(() => store.messageAt(message?.channel ?? STUCK_CHANNEL, message?.ts ?? '0')))[1])
    unknown.push((await timed(async () => (await store.messageAt(STUCK_CHANNEL, '1.000000')) ?? store.postInFlight(STUCK_CHANNEL, Date.now() - 60_000)))[1])
  }
  return { mineP99: percentile(mine, 99), knownReplyP99: percentile(known, 99), unknownReplyP99: percentile(unknown, 99), digestStuckMs, digestAllMs }
}

/**
 * The cleanup deleting `EXPIRED` old marks while a delivery is recorded every 2 ms: its duration and the
 * slowest record, beside the slowest record of the same loop for a second with no cleanup running (what
 * the machine alone costs: fsync, other processes).
 */
async function cleanupFigures(database: Database, store: Store): Promise<Pick<Figures, 'cleanupMs' | 'cleanupStallMs' | 'quietStallMs'>> {
  await addExpiredMarks(database.target, EXPIRED, Date.now())
  let n = 0
  const recordWhile = async (running: () => boolean) => {
    let slowest = 0
    while (running()) {
      const [, took] = await timed(() => store.recordDelivery({ provider: 'github', deliveryId: `stall-${n++}-${randomUUID()}`, prKey: 'github:org/repo-0#1', event: { kind: 'ping' } as never }))
      slowest = Math.max(slowest, took)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    return slowest
  }
  const quietUntil = performance.now() + 1000
  const quietStallMs = await recordWhile(() => performance.now() < quietUntil)
  let running = true
  const acks = recordWhile(() => running)
  // As the server runs it with this config's `cleanup.message_ttl_days: 400`: the delivery marks are kept as
  // long as the messages (the replay window is only a floor), so it deletes the expired marks and nothing of the year.
  const [forgotten, cleanupMs] = await timed(() => runCleanup({ store, logger: createLogger({ level: 'error', format: 'json' }), ttlDays: TTL_DAYS }))
  running = false
  const cleanupStallMs = await acks
  if (forgotten.deliveries < EXPIRED) console.log(`  (the cleanup deleted ${forgotten.deliveries} marks, not ${EXPIRED})`)
  return { cleanupMs, cleanupStallMs, quietStallMs }
}

/** prherald-server on the database: start to ready, RSS after a second, then the burst's acknowledgements. */
async function serverFigures(database: Database, label: string): Promise<Pick<Figures, 'startMs' | 'rss' | 'cpuUsPerDelivery' | 'ackP99'>> {
  const env = {
    ...process.env, ...testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), GITHUB_WEBHOOK_SECRET: SECRET, GITHUB_TOKEN: '', BITBUCKET_TOKEN: '',
    PRHERALD_DATABASE_URL: database.url,
  }
  const started = performance.now()
  // HISTORY_LOGS=<dir>: each server's log kept there (its start-up steps say where a slow start went).
  const log = process.env.HISTORY_LOGS ? createWriteStream(join(process.env.HISTORY_LOGS, `${label}.log`)) : undefined
  const server = await spawnListening('dist/src/cli/server.js', [], env, log)
  try {
    for (let tries = 0; ; tries++) {
      const ready = await fetch(`${server.url}/readyz`).then((r) => r.status === 200, () => false)
      if (ready) break
      if (tries > 1500) throw new Error('prherald-server was not ready after 30 s')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const startMs = performance.now() - started
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const rss = rssMiB(server.child.pid)
    let i = 0
    const next = () => signed({ ...openedPayload(100_000 + (i % 200)), bench_request: `${label}-${i++}` })
    await runLoad(`${server.url}/webhook/github`, next, { total: Math.min(500, BURST), concurrency: 32, maxSeconds: 10 })
    const cpu: number[] = []
    const p99: number[] = []
    for (let round = 0; round < BURSTS; round++) {
      const cpuBefore = cpuMs(server.child.pid)
      const result = await runLoad(`${server.url}/webhook/github`, next, { total: BURST, concurrency: 32, maxSeconds: 30 })
      cpu.push(((cpuMs(server.child.pid) - cpuBefore) * 1000) / Math.max(1, result.completed + result.failed))
      p99.push(result.p99)
    }
    return { startMs, rss, cpuUsPerDelivery: percentile(cpu, 50), ackP99: percentile(p99, 50) }
  } finally {
    await server.stop()
  }
}

async function measure(open: (name: string) => Promise<Database>, store: string): Promise<{ empty: Figures; history: Figures }> {
  const figures: Partial<Record<'empty' | 'history', Figures>> = {}
  for (const kind of ['empty', 'history'] as const) {
    if (stopping) throw new Error('stopped')
    const database = await open(kind)
    try {
      let migrateMs: number | undefined
      let bytesPerPr: number | undefined
      if (kind === 'history') {
        await database.migrate(true)
        const progress = createProgress(`${store}: building the history`, { unit: 'rows', total: historyRows(sizes) })
        const [, buildMs] = await timed(() => buildHistory(database.target, sizes, Date.now(), progress, () => stopping))
        progress.finish()
        console.log(`  ${store}: history built in ${(buildMs / 1000).toFixed(1)} s`)
        ;[, migrateMs] = await timed(() => database.migrate(false))
        const [, settleMs] = await timed(() => database.settle())
        if (settleMs > 1) console.log(`  ${store}: vacuumed and analysed in ${(settleMs / 1000).toFixed(1)} s`)
        bytesPerPr = (await database.bytes()) / sizes.pullRequests
      } else await database.migrate(false)
      const server = await serverFigures(database, `${store}-${kind}`)
      const opened = await database.store()
      try {
        figures[kind] = { migrateMs, bytesPerPr, ...server, ...await storeFigures(opened), ...await cleanupFigures(database, opened) }
      } finally {
        await opened.close()
      }
    } finally {
      await database.close()
    }
  }
  return figures as { empty: Figures; history: Figures }
}

const TARGETS = { ratio: 1.2, startMs: 2000, rss: 100, digestMs: 2000, mineMs: 100, stallMs: 50 }
const failures: string[] = []
let postgres: PostgresServer | undefined
try {
  console.log(`bench:history: ${sizes.repositories} repositories in the config, ${sizes.pullRequests} PRs (${sizes.open} open), ${sizes.deliveries} delivery marks, `
    + `${sizes.replies} thread replies, ${sizes.dmPeople} people with DMs (${sizes.dmPeople * 250} direct messages), ${sizes.linked} linked accounts; `
    + `burst ${BURST} deliveries (${BURSTS} bursts, their medians), ${SAMPLES} samples a request, cleanup of ${EXPIRED} expired rows; stores: ${STORES.join(', ')} `
    + '(knobs: HISTORY_PRS, HISTORY_OPEN, HISTORY_DELIVERIES, HISTORY_REPLIES, HISTORY_REPOSITORIES, HISTORY_DM_PEOPLE, HISTORY_LINKED, HISTORY_EXPIRED, HISTORY_BURST, HISTORY_BURSTS, HISTORY_SAMPLES, HISTORY_STORES)')
  for (const store of STORES) {
    if (store === 'postgres') postgres ??= await startPostgresServer()
    const server = postgres
    const { empty, history } = await measure((name) => (store === 'sqlite' ? Promise.resolve(sqliteDatabase(`${name}`)) : postgresDatabase(server!, name)), store)
    const row = (what: string, e: number | undefined, h: number | undefined, unit: (n: number) => string) =>
      console.log(`  ${what.padEnd(34)} empty ${e === undefined ? '-' : unit(e)}`.padEnd(58) + `history ${h === undefined ? '-' : unit(h)}`
        + (e && h ? `  (${(h / e).toFixed(2)}x)` : ''))
    console.log(`${store}:`)
    row('prherald-migrate up (previous schema)', undefined, history.migrateMs, ms)
    row('database bytes per PR', undefined, history.bytesPerPr, (n) => `${n.toFixed(0)} B`)
    row('start to ready', empty.startMs, history.startMs, ms)
    row('RSS one second after start', empty.rss, history.rss, (n) => `${n.toFixed(1)} MiB`)
    row('CPU per acknowledged delivery', empty.cpuUsPerDelivery, history.cpuUsPerDelivery, (n) => `${n.toFixed(0)} µs`)
    row('ack p99 under the burst', empty.ackP99, history.ackP99, ms)
    row('digest read, stuck channel', empty.digestStuckMs, history.digestStuckMs, ms)
    row('digest read, all channels', empty.digestAllMs, history.digestAllMs, ms)
    row('/prherald mine and Home p99', empty.mineP99, history.mineP99, ms)
    row('thread reply, known thread p99', empty.knownReplyP99, history.knownReplyP99, ms)
    row('thread reply, unknown thread p99', empty.unknownReplyP99, history.unknownReplyP99, ms)
    row(`cleanup of ${EXPIRED} expired rows`, empty.cleanupMs, history.cleanupMs, ms)
    row('longest ack during cleanup', empty.cleanupStallMs, history.cleanupStallMs, ms)
    row('longest ack, no cleanup (1 s)', empty.quietStallMs, history.quietStallMs, ms)
    const check = (ok: boolean, what: string) => { if (!ok) failures.push(`${store} ${what}`) }
    check(history.cpuUsPerDelivery <= TARGETS.ratio * empty.cpuUsPerDelivery, 'CPU/delivery')
    check(history.ackP99 <= TARGETS.ratio * empty.ackP99, 'ack p99')
    check(history.startMs <= TARGETS.startMs, 'start')
    check(history.rss <= TARGETS.rss, 'RSS')
    check(history.digestStuckMs < TARGETS.digestMs, 'digest')
    check(history.mineP99 < TARGETS.mineMs, 'mine/Home')
    check(history.cleanupStallMs <= TARGETS.stallMs, 'cleanup stall')
  }
  console.log(failures.length === 0
    ? 'verdict: PASS, every target met on every store (ratios to the empty database in this run)'
    : `verdict: FAIL, missed: ${failures.join(', ')}`)
} catch (error) {
  console.log(`bench:history: ${stopping ? 'stopped' : `failed: ${(error as Error).stack}`}`)
  process.exitCode = 1
} finally {
  killChildren()
  await postgres?.stop()
  await slack.close()
  dir.remove()
}
process.exit(process.exitCode ?? (failures.length === 0 ? 0 : 1))
