import '../src/cli/require-supported-node.ts'
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { signBody } from '../src/hosts/verify-signature.ts'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { testEnv, writeConfig } from '../test/helpers/start-prherald.ts'
import { openedPayload, runBareBurstMemory, runCorrectnessBurst } from './correctness-burst.ts'
import { runLoad, type Delivery, type LoadResult } from './load.ts'
import { pacedMappings, runPacedBurst } from './paced-burst.ts'
import { createSlackLimitGate } from '../test/helpers/slack-limit-gate.ts'
import { cpuMs, killChildren, spawnListening, type Child } from './processes.ts'
import { runPostgresBenches } from './postgres-benches.ts'
import { burstShares } from './postgres-replicas.ts'
import { measureStartMemory } from './start-memory.ts'
import { verdictLine, type BenchFigures } from './verdict.ts'

/**
 * `npm run bench`: acknowledgement throughput of prherald against a bare node:http server and
 * @octokit/webhooks' middleware (A B C A B C, same machine, same signed payloads), then a correctness
 * burst. Everything runs on 127.0.0.1 and is bounded in count and time; docs/performance.md explains
 * the output and the knobs.
 */
const SECRET = 'bench-secret'
const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 4000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const BURST_PRS = Number(process.env.BENCH_BURST_PRS ?? 820)
const PACED_PRS = Number(process.env.BENCH_PACED_PRS ?? 500)
const PACED_CHANNELS = Number(process.env.BENCH_PACED_CHANNELS ?? 10)
// Slack's minutes pass this many times faster for the rate-limited fake and for prherald's pacer.
const PACED_SCALE = Number(process.env.BENCH_PACED_SCALE ?? 30)
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 30)
// A comma-separated list of parts: a server's name (prherald, bare, octokit, intake-only or h3-only) runs that
// server's throughput rounds, `burst` the correctness burst, `paced` the burst against a rate-limited Slack,
// `postgres` the burst against 1 and 3 replicas on PostgreSQL. `prherald,bare,burst` gives the ratios to bare,
// the burst's growth and its catch-up in about a third of the whole run.
const ONLY = process.env.BENCH_ONLY?.split(',').filter(Boolean)
const only = (part: string) => !ONLY || ONLY.includes(part)
// Parts that run only when BENCH_ONLY names them.
const onlyNamed = (part: string) => ONLY?.includes(part) === true
const started = Date.now()
// The whole run must stay well under 3 minutes; anything stuck past this is reported, not waited for.
const hardStop = setTimeout(() => {
  console.error('bench: over its time limit, giving up')
  killChildren()
  process.exit(2)
}, Number(process.env.BENCH_TIMEOUT_SECONDS ?? 420) * 1000)
hardStop.unref()

function signed(event: string, payload: unknown, deliveryId: string = randomUUID()): Delivery {
  const body = Buffer.from(JSON.stringify(payload))
  return {
    body,
    headers: {
      'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': deliveryId,
      'x-hub-signature-256': signBody(SECRET, body), 'user-agent': 'GitHub-Hookshot/bench',
    },
  }
}

const dir = makeTempDir('prherald-bench-')
const slack = await startFakeSlack({ anyChannel: true })
slack.latencyMs = 30
const mappings = { Codertocat: { '*': { channel: 'C0000000001' } } }
// Throughput rounds measure acknowledgements only: at the end of a round prherald gets 2 s to drain its
// mailboxes, and what is left stays pending in that round's own database, which no later round opens.
writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json', log_level: 'info', shutdown_timeout_seconds: 2 }, mappings })
// The same server with server.ack_thread on: its own throughput rounds (`prherald-thread`), in turn with the others.
mkdirSync(join(dir.path, 'thread'))
writeConfig(join(dir.path, 'thread'), { git_provider: 'github', server: { log_format: 'json', log_level: 'info', shutdown_timeout_seconds: 2, ack_thread: true }, mappings })
// BENCH_ACK_THREAD=1: the correctness burst (and the start memory) with server.ack_thread on.
const ACK_THREAD = process.env.BENCH_ACK_THREAD === '1'
mkdirSync(join(dir.path, 'burst'))
writeConfig(join(dir.path, 'burst'), { git_provider: 'github', server: { log_format: 'json', log_level: 'info', ...(ACK_THREAD ? { ack_thread: true } : {}) }, mappings })
mkdirSync(join(dir.path, 'paced'))
writeConfig(join(dir.path, 'paced'), {
  git_provider: 'github', server: { log_format: 'json', log_level: 'info' }, slack: { pacing: 'published' }, mappings: pacedMappings(PACED_CHANNELS),
})
const prheraldEnv = (config: string, database: string) => ({
  // Blank git-host tokens: one in the operator's shell would send start-up validation to the real GitHub.
  ...process.env, ...testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), GITHUB_WEBHOOK_SECRET: SECRET, GITHUB_TOKEN: '', BITBUCKET_TOKEN: '',
  PRHERALD_CONFIG_FILE: join(config, 'config.yaml'), PRHERALD_DATABASE_URL: `file:${join(dir.path, database)}`,
})

// The same 200 pull requests for every server; a fresh delivery id and body per request (a field the decoder
// does not read), so prherald never short-cuts a duplicate nor refuses a replayed body (docs/security.md).
const payloads = Array.from({ length: 200 }, (_, i) => openedPayload(10_000 + i))
// Counted here, not by runLoad (which starts at 0 for each load): the warm-up's bodies must not come again.
let sent = 0
const next = (): Delivery => {
  const i = sent++
  return signed('pull_request', { ...payloads[i % payloads.length]!, bench_request: i })
}

const servers: Array<[name: string, start: (round: number) => Promise<Child>]> = [
  ['prherald', (round) => spawnListening('dist/src/cli/server.js', [], prheraldEnv(dir.path, `round-${round}.db`))],
  // Not run unless BENCH_ONLY names it: prherald with server.ack_thread on.
  ['prherald-thread', (round) => spawnListening('dist/src/cli/server.js', [], prheraldEnv(join(dir.path, 'thread'), `round-thread-${round}.db`))],
  ['bare', () => spawnListening('dist/bench/serve-baseline.js', ['bare', SECRET], process.env)],
  ['octokit', () => spawnListening('dist/bench/serve-baseline.js', ['octokit', SECRET], process.env)],
  // Not one of the three the issue compares: prherald's acknowledgement path with no mailbox behind it.
  ['intake-only', (round) => spawnListening('dist/bench/serve-intake.js', [SECRET, join(dir.path, `intake-${round}`), 'store'], process.env)],
  // Nor this one: the same h3 app, signature check and decoding, with nothing written.
  ['h3-only', () => spawnListening('dist/bench/serve-intake.js', [SECRET, '', 'none'], process.env)],
]
const label: Record<string, string> = { prherald: 'prherald', 'prherald-thread': 'prherald, ack thread', bare: 'bare node:http', octokit: '@octokit/webhooks', 'intake-only': 'prherald ack only', 'h3-only': 'prherald, no store' }

type Measured = LoadResult & { cpuUsPerDelivery: number }
const results = new Map<string, Measured[]>()
const measuredServers = servers.filter(([n]) => (n === 'prherald-thread' ? onlyNamed(n) : only(n)))
if (measuredServers.length > 0) console.log(`throughput: ${TOTAL} signed deliveries of ~${Math.round(signed('pull_request', payloads[0]).body.length / 1024)} KB per run after ${WARMUP} to warm up, `
  + `${CONCURRENCY} keep-alive connections on 127.0.0.1, fake Slack answering after ${slack.latencyMs} ms; servers in turn, ${ROUNDS} rounds`)
for (let round = 1; round <= (measuredServers.length > 0 ? ROUNDS : 0); round++) {
  for (const [name, start] of measuredServers) {
    const server = await start(round)
    const url = `${server.url}/webhook/github`
    await runLoad(url, next, { total: WARMUP, concurrency: CONCURRENCY, maxSeconds: 10 })
    const cpuBefore = cpuMs(server.child.pid)
    const result = await runLoad(url, next, { total: TOTAL, concurrency: CONCURRENCY, maxSeconds: 20 })
    const cpuUsPerDelivery = ((cpuMs(server.child.pid) - cpuBefore) * 1000) / (result.completed + result.failed)
    await server.stop()
    results.set(name, [...(results.get(name) ?? []), { ...result, cpuUsPerDelivery }])
    console.log(`  round ${round} ${label[name]!.padEnd(18)} ${result.perSecond.toFixed(0).padStart(6)}/s  p50 ${result.p50.toFixed(2).padStart(6)} ms`
      + `  p99 ${result.p99.toFixed(2).padStart(6)} ms  server CPU ${cpuUsPerDelivery.toFixed(0).padStart(4)} µs/delivery`
      + `${result.failed || result.completed < TOTAL ? `  ONLY ${result.completed}/${TOTAL} ACKNOWLEDGED (${JSON.stringify(result.failures)})` : ''}`)
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
if (results.size > 0) console.log('\n| server | deliveries/s | p50 ack ms | p99 ack ms | server CPU µs/delivery |\n|---|---:|---:|---:|---:|')
for (const [name, rs] of results) {
  console.log(`| ${label[name]} | ${mean(rs.map((r) => r.perSecond)).toFixed(0)} | ${mean(rs.map((r) => r.p50)).toFixed(2)} `
    + `| ${mean(rs.map((r) => r.p99)).toFixed(2)} | ${mean(rs.map((r) => r.cpuUsPerDelivery)).toFixed(0)} |`)
}
const compare = (mineName: string, other: string) => {
  const mine = results.get(mineName) ?? []
  const theirs = results.get(other)!
  const ratios = mine.map((r, i) => r.perSecond / theirs[i]!.perSecond)
  const cpu = mine.map((r, i) => theirs[i]!.cpuUsPerDelivery / r.cpuUsPerDelivery)
  console.log(`${label[mineName]} / ${label[other]}: throughput ${ratios.map((x) => x.toFixed(2)).join(', ')} (round by round, mean ${mean(ratios).toFixed(2)}); `
    + `CPU per delivery ${label[other]} / ${label[mineName]} ${cpu.map((x) => x.toFixed(2)).join(', ')}`)
}
const figures: BenchFigures = {}
const prheraldRuns = results.get('prherald')
const bareRuns = results.get('bare')
if (prheraldRuns && bareRuns) {
  const ratio = (pick: (r: Measured) => number) => mean(prheraldRuns.map((r, i) => pick(r) / pick(bareRuns[i]!)))
  Object.assign(figures, { throughputVsBare: ratio((r) => r.perSecond), ackP99VsBare: ratio((r) => r.p99), cpuVsBare: ratio((r) => r.cpuUsPerDelivery) })
}
const threadRuns = results.get('prherald-thread')
if (threadRuns && bareRuns) {
  // Round by round against the bare server of the same round, like the figures above.
  const ratios = (pick: (r: Measured) => number) => threadRuns.map((r, i) => pick(r) / pick(bareRuns[i]!))
  const list = (xs: number[]) => `${xs.map((x) => x.toFixed(2)).join(', ')} (mean ${mean(xs).toFixed(2)})`
  console.log(`prherald, ack thread / bare node:http: throughput ${list(ratios((r) => r.perSecond))}; ack p99 ${list(ratios((r) => r.p99))}; `
    + `CPU per delivery ${list(ratios((r) => r.cpuUsPerDelivery))}`)
  if (prheraldRuns) {
    const plain = (pick: (r: Measured) => number) => prheraldRuns.map((r, i) => pick(r) / pick(bareRuns[i]!))
    console.log(`prherald / bare node:http, same rounds: throughput ${list(plain((r) => r.perSecond))}; ack p99 ${list(plain((r) => r.p99))}; `
      + `CPU per delivery ${list(plain((r) => r.cpuUsPerDelivery))}`)
  }
}
if (!ONLY) {
  compare('prherald', 'bare')
  compare('prherald', 'octokit')
  compare('intake-only', 'bare')
  compare('h3-only', 'bare')
}

if (only('burst')) {
  console.log(`\ncorrectness burst: ${BURST_PRS} PRs x 6 deliveries (opened, its retry with the same delivery id, 3 reviews, 1 comment), random order, `
    + `fake Slack answering after ${slack.latencyMs} ms and enforcing no limits (slack.pacing off)`)
  const server = await spawnListening('dist/src/cli/server.js', [], prheraldEnv(join(dir.path, 'burst'), 'burst.db'))
  const report = await runCorrectnessBurst({
    server, slack, databasePath: join(dir.path, 'burst.db'), sign: signed, prs: BURST_PRS, concurrency: CONCURRENCY,
    idleTimeoutSeconds: Number(process.env.BENCH_IDLE_TIMEOUT_SECONDS ?? 90), settleSeconds: SETTLE_SECONDS,
  })
  for (const line of report.lines) console.log(line)
  figures.growthMiB = report.growthMiB
  figures.idleAboveStartMiB = report.idleAboveStartMiB
  await server.stop()
  const bare = await spawnListening('dist/bench/serve-baseline.js', ['bare', SECRET], process.env)
  console.log(await runBareBurstMemory({ server: bare, url: `${bare.url}/webhook/github`, sign: signed, prs: BURST_PRS, concurrency: CONCURRENCY, settleSeconds: SETTLE_SECONDS, prheraldPerSecond: report.perSecond }))
  await bare.stop()
  process.exitCode = report.ok ? 0 : 1
}

if (only('paced')) {
  // `off` first: the same burst with only the 429 handling (what a client that just retries 429s does), then paced.
  for (const pacing of (process.env.BENCH_PACED_MODES ?? 'off,published').split(',')) {
    console.log(`\npaced burst, slack.pacing ${pacing}: ${PACED_PRS} PRs across ${PACED_CHANNELS} channels x 6 deliveries, random order, against a fake Slack `
      + `enforcing Slack's published limits with 429 + Retry-After (test/helpers/slack-published-limits.ts); Slack's clock and prherald's pacer run ${PACED_SCALE}x fast`)
    const gate = createSlackLimitGate({ scale: PACED_SCALE })
    const limited = await startFakeSlack({ anyChannel: true, limits: gate })
    limited.latencyMs = 30
    const env = { ...prheraldEnv(join(dir.path, 'paced'), `paced-${pacing}.db`), SLACK_API_URL: limited.url, PRHERALD_SLACK_PACING: pacing }
    const server = await spawnListening('dist/bench/serve-paced.js', [String(PACED_SCALE)], env)
    const bare = await spawnListening('dist/bench/serve-baseline.js', ['bare', SECRET], process.env)
    const report = await runPacedBurst({
      url: server.url, bareUrl: bare.url, slack: limited, gate, sign: signed, prs: PACED_PRS, channels: PACED_CHANNELS, scale: PACED_SCALE,
      concurrency: CONCURRENCY, timeoutSeconds: 240,
    })
    for (const line of report.lines) console.log(line)
    await Promise.all([server.stop(), bare.stop()])
    await limited.close()
    if (!report.ok && pacing === 'published') process.exitCode = 1
  }
}
if (only('postgres')) {
  const { ok, replicaCpuVsOne } = await runPostgresBenches({
    slack, sign: signed, prs: Number(process.env.BENCH_PG_PRS ?? 400), warmupPrs: Number(process.env.BENCH_PG_WARMUP_PRS ?? 0), shares: burstShares(process.env.BENCH_PG_SHARES), concurrency: CONCURRENCY,
    replicas: (process.env.BENCH_REPLICAS ?? '1,3').split(',').map(Number),
    env: prheraldEnv(join(dir.path, 'burst'), 'unused.db'),
    idleTimeoutSeconds: Number(process.env.BENCH_IDLE_TIMEOUT_SECONDS ?? 90),
  })
  figures.replicaCpuVsOne = replicaCpuVsOne
  if (!ok) process.exitCode = 1
}
await slack.close()
dir.remove()
if (!ONLY) {
  const start = await measureStartMemory(3, ACK_THREAD)
  figures.startMiB = ACK_THREAD ? start.ackThread : start.prherald
}
console.log(`\n${verdictLine(figures)}`)
console.log(`\nbench finished in ${((Date.now() - started) / 1000).toFixed(0)} s`)
clearTimeout(hardStop)
