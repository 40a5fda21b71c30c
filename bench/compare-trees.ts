import '../src/cli/require-supported-node.ts'
import { randomUUID } from 'node:crypto'
import { join, resolve } from 'node:path'
import { signBody } from '../src/hosts/verify-signature.ts'
import { packageRoot } from '../src/package-root.ts'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { testEnv, writeConfig } from '../test/helpers/start-prherald.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { openedPayload, shuffledBurst, type Sign } from './correctness-burst.ts'
import { runLoad, type Delivery } from './load.ts'
import { cpuMs, spawnListening } from './processes.ts'

/**
 * `node dist/bench/compare-trees.js <other tree> [prherald|prherald-mix|intake-only]`: a same-run A/B of one server from
 * two built trees (this one and another checkout with its own `npm run build`), with the bare node:http
 * server in every round, in the order other, this, bare, then this, other, bare, ... so that a busy machine
 * hurts both alike. Prints each run and the medians: CPU per delivery (all threads, from /proc) is the
 * figure that load distorts least; throughput and p99 are given against the bare server of the same round.
 * For prherald also the CPU until its mailboxes are empty again (the processing the load started, which
 * outlasts it) and how long that took after the last acknowledgement. `prherald-mix` sends the issue's own
 * mix instead of `opened` alone: per pull request opened, its retry, three reviews and a comment, shuffled
 * (bench/correctness-burst.ts), so the processing makes a Slack call per change.
 */
const [otherTree, server = 'prherald'] = process.argv.slice(2)
if (!otherTree) throw new Error('usage: compare-trees <other built tree> [prherald|prherald-mix|intake-only]')
const PRHERALD = server !== 'intake-only'
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 5)
const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 3000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500)
const SECRET = 'bench-secret'
const dir = makeTempDir('prherald-ab-')
const slack = await startFakeSlack({ anyChannel: true })
slack.latencyMs = 30
writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json', log_level: 'info', shutdown_timeout_seconds: 2 }, mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
const payloads = Array.from({ length: 200 }, (_, i) => openedPayload(10_000 + i))
// A body of its own per request (a field the decoder does not read), as in run.ts: a body seen before under
// another delivery id is refused as a replay (docs/security.md), and would measure no processing at all.
const sign: Sign = (event, payload, deliveryId = randomUUID()) => {
  const body = Buffer.from(JSON.stringify(payload))
  return { body, headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': deliveryId, 'x-hub-signature-256': signBody(SECRET, body) } }
}
let counter = 0
const next = (): Delivery => {
  const i = counter++
  return sign('pull_request', { ...payloads[i % payloads.length]!, bench_request: i })
}
// prherald-mix: each measure sends a burst of its own (a fresh database each time), warm-up first.
let mix: Delivery[] = []
const loadFrom = (offset: number) => server === 'prherald-mix' ? (i: number) => mix[offset + i]! : next

let run = 0
const start = (tree: string) => {
  const at = (script: string) => join(resolve(tree), script)
  const database = join(dir.path, `run-${++run}`)
  if (server === 'intake-only') return spawnListening(at('dist/bench/serve-intake.js'), [SECRET, database, 'store'], process.env)
  return spawnListening(at('dist/src/cli/server.js'), [], {
    ...process.env, ...testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), GITHUB_WEBHOOK_SECRET: SECRET, GITHUB_TOKEN: '', BITBUCKET_TOKEN: '',
    PRHERALD_DATABASE_URL: `file:${database}.db`,
  })
}
// prherald's mailboxes, read from its /metrics: the load ends long before the processing it started does.
const queued = async (url: string) => {
  const found = /^prherald_queued_deliveries (\d+)/m.exec(await fetch(`${url}/metrics`).then((r) => r.text()))
  if (!found) throw new Error(`${url}/metrics has no prherald_queued_deliveries`)
  return Number(found[1])
}
const drained = async (url: string) => {
  const started = Date.now()
  while (Date.now() - started < 120_000 && await queued(url) > 0) await new Promise((r) => setTimeout(r, 50))
  return (Date.now() - started) / 1000
}
const measure = async (child: Awaited<ReturnType<typeof start>>, processing = false) => {
  const url = `${child.url}/webhook/github`
  if (server === 'prherald-mix') mix = shuffledBurst(Math.ceil((WARMUP + TOTAL) / 6), sign)
  await runLoad(url, loadFrom(0), { total: WARMUP, concurrency: 32, maxSeconds: 10 })
  if (processing) await drained(child.url)
  const before = cpuMs(child.child.pid)
  const result = await runLoad(url, loadFrom(WARMUP), { total: TOTAL, concurrency: 32, maxSeconds: 30 })
  const deliveries = result.completed + result.failed
  const cpu = ((cpuMs(child.child.pid) - before) * 1000) / deliveries
  // CPU per delivery with its processing, from the first delivery until the mailboxes are empty again.
  const drainSeconds = processing ? await drained(child.url) : 0
  const cpuDrained = ((cpuMs(child.child.pid) - before) * 1000) / deliveries
  await child.stop()
  return { ...result, cpu, cpuDrained, drainSeconds }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rows: Record<'other' | 'this', Array<{ cpu: number; ratio: number; p99: number; cpuDrained: number; drainSeconds: number }>> = { other: [], this: [] }
console.log(`A/B of ${server}: other = ${otherTree}, this = ${packageRoot()}; ${ROUNDS} rounds of ${TOTAL} deliveries after ${WARMUP}`)
for (let round = 1; round <= ROUNDS; round++) {
  const order: Array<'other' | 'this'> = round % 2 === 1 ? ['other', 'this'] : ['this', 'other']
  const measured: Partial<Record<'other' | 'this', Awaited<ReturnType<typeof measure>>>> = {}
  for (const which of order) measured[which] = await measure(await start(which === 'other' ? otherTree : packageRoot()), PRHERALD)
  const bare = await measure(await spawnListening(join(packageRoot(), 'dist/bench/serve-baseline.js'), ['bare', SECRET], process.env))
  for (const which of order) {
    const m = measured[which]!
    rows[which].push({ cpu: m.cpu, ratio: m.perSecond / bare.perSecond, p99: m.p99 / bare.p99, cpuDrained: m.cpuDrained, drainSeconds: m.drainSeconds })
    console.log(`  round ${round} ${which.padEnd(5)} ${m.perSecond.toFixed(0).padStart(5)}/s (bare ${bare.perSecond.toFixed(0)}/s) p99 ${m.p99.toFixed(1)} ms (bare ${bare.p99.toFixed(1)})`
      + `  CPU ${m.cpu.toFixed(0)} µs/delivery (bare ${bare.cpu.toFixed(0)})`
      + `${PRHERALD ? `, until drained ${m.cpuDrained.toFixed(0)} (${m.drainSeconds.toFixed(1)} s after the load)` : ''}${m.failed ? `  ${m.failed} FAILED` : ''}`)
  }
}
for (const which of ['other', 'this'] as const) {
  const r = rows[which]
  console.log(`${which}: median CPU ${median(r.map((x) => x.cpu)).toFixed(0)} µs/delivery; throughput / bare ${median(r.map((x) => x.ratio)).toFixed(2)}; p99 / bare ${median(r.map((x) => x.p99)).toFixed(2)}`
    + `${PRHERALD ? `; until drained ${median(r.map((x) => x.cpuDrained)).toFixed(0)} µs/delivery, ${median(r.map((x) => x.drainSeconds)).toFixed(1)} s after the load` : ''}`)
}
await slack.close()
dir.remove()
