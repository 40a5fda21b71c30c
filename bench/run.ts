import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { signBody } from '../src/intake/verify-signature.ts'
import { startFakeSlack } from '../test/helpers/fake-slack.ts'
import { githubExample } from '../test/helpers/github-examples.ts'
import { makeTempDir } from '../test/helpers/temp-dir.ts'
import { testEnv, writeConfig } from '../test/helpers/start-prherald.ts'
import { runLoad, type Delivery, type LoadResult } from './load.ts'
import { rssMiB, spawnListening, type Child } from './processes.ts'

/**
 * `npm run bench`: acknowledgement throughput of prherald against a bare node:http server and
 * @octokit/webhooks' middleware (A B C A B C, same machine, same signed payloads), then a correctness
 * burst. Everything runs on 127.0.0.1 and is bounded in count.
 */
const SECRET = 'bench-secret'
const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 4000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const BURST_PRS = Number(process.env.BENCH_BURST_PRS ?? 500)
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 30)

type Payload = Record<string, unknown> & { pull_request: { number: number; draft: boolean }; number: number }

function opened(number: number): Payload {
  const p = githubExample('pull_request', 'opened') as Payload
  p.number = number
  p.pull_request.number = number
  p.pull_request.draft = false
  return p
}

function signed(event: string, payload: unknown, deliveryId = randomUUID()): Delivery {
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
writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json', log_level: 'info' }, mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
const env = { ...process.env, ...testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), GITHUB_WEBHOOK_SECRET: SECRET }

// Same bodies for every server; a fresh delivery id per request so prherald never short-cuts a duplicate.
const bodies = Array.from({ length: 200 }, (_, i) => signed('pull_request', opened(10_000 + i)))
const next = (i: number): Delivery => {
  const base = bodies[i % bodies.length]!
  return { body: base.body, headers: { ...base.headers, 'x-github-delivery': randomUUID() } }
}

const only = process.env.BENCH_ONLY
const allServers: Array<[string, () => Promise<Child>]> = [
  ['prherald', () => spawnListening('dist/src/cli/server.js', [], env)],
  ['bare node:http', () => spawnListening('dist/bench/serve-baseline.js', ['bare', SECRET], process.env)],
  ['@octokit/webhooks', () => spawnListening('dist/bench/serve-baseline.js', ['octokit', SECRET], process.env)],
]
const servers = allServers.filter(([name]) => !only || name === only)

const results = new Map<string, LoadResult[]>()
console.log(`throughput: ${TOTAL} signed deliveries of ~${Math.round(bodies[0]!.body.length / 1024)} KB, ${CONCURRENCY} keep-alive connections, fake Slack answering after ${slack.latencyMs} ms`)
for (let round = 1; round <= 2; round++) {
  for (const [name, start] of servers) {
    const server = await start()
    await runLoad(`${server.url}/webhook/github`, next, { total: 200, concurrency: CONCURRENCY }) // warm-up
    const result = await runLoad(`${server.url}/webhook/github`, next, { total: TOTAL, concurrency: CONCURRENCY })
    await server.stop()
    results.set(name, [...(results.get(name) ?? []), result])
    console.log(`  round ${round} ${name.padEnd(18)} ${result.perSecond.toFixed(0).padStart(6)}/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms${result.failed ? `  FAILED ${result.failed}` : ''}`)
  }
}

const rows = [...results.entries()].map(([name, rs]) => ({
  name,
  perSecond: rs.reduce((a, r) => a + r.perSecond, 0) / rs.length,
  p50: rs.reduce((a, r) => a + r.p50, 0) / rs.length,
  p99: rs.reduce((a, r) => a + r.p99, 0) / rs.length,
}))
console.log('\n| server | deliveries/s | p50 ack ms | p99 ack ms |\n|---|---:|---:|---:|')
for (const r of rows) console.log(`| ${r.name} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`)
const ours = results.get('prherald') ?? []
for (const other of only ? [] : ['bare node:http', '@octokit/webhooks']) {
  const ratios = ours.map((r, i) => (r.perSecond / results.get(other)![i]!.perSecond).toFixed(2))
  console.log(`prherald / ${other}: ${ratios.join(', ')} (round by round)`)
}

if (only) process.exit(0)
// Correctness burst: 500 PRs x 6 deliveries in random order, one of them a retried delivery id.
console.log(`\ncorrectness burst: ${BURST_PRS} PRs x 6 deliveries, random order`)
slack.calls.length = 0
slack.messages.clear()
const burstEnv = { ...env, PRHERALD_DATABASE_URL: `file:${join(dir.path, 'burst.db')}` }
const server = await spawnListening('dist/src/cli/server.js', [], burstEnv)
const before = rssMiB(server.child.pid)
const burst: Delivery[] = []
for (let n = 1; n <= BURST_PRS; n++) {
  const first = signed('pull_request', opened(n))
  const review = (state: string, user: string) => {
    const p = githubExample('pull_request_review', 'submitted') as Payload & { review: { state: string; user: { login: string } } }
    p.pull_request.number = n
    p.review.state = state
    p.review.user.login = user
    return signed('pull_request_review', p)
  }
  const comment = githubExample('issue_comment', 'created') as { issue: { number: number; pull_request?: unknown } }
  comment.issue.number = n
  comment.issue.pull_request = { html_url: `https://github.com/Codertocat/Hello-World/pull/${n}` }
  burst.push(first, { ...first }, review('approved', 'carol'), review('commented', 'dave'), review('changes_requested', 'erin'), signed('issue_comment', comment))
}
for (let i = burst.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1))
  ;[burst[i], burst[j]] = [burst[j]!, burst[i]!]
}
let peak = before
const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(server.child.pid)) }, 100)
const t0 = Date.now()
const burstResult = await runLoad(`${server.url}/webhook/github`, (i) => burst[i]!, { total: burst.length, concurrency: CONCURRENCY })
let lastCalls = -1
while (slack.calls.length !== lastCalls || slack.messages.size < BURST_PRS) {
  lastCalls = slack.calls.length
  await sleep(500)
  if (Date.now() - t0 > 120_000) break
}
const idleAfter = (Date.now() - t0 - 500) / 1000
clearInterval(sampler)
const perPr = new Map<number, number>()
for (const m of slack.messages.values()) {
  const n = Number(/#(\d+):/.exec(m.text)?.[1])
  perPr.set(n, (perPr.get(n) ?? 0) + 1)
}
const exactlyOne = [...perPr.values()].filter((c) => c === 1).length
console.log(`  acknowledged ${burstResult.completed}/${burst.length} (${burstResult.perSecond.toFixed(0)}/s), failed ${burstResult.failed}`)
console.log(`  Slack calls ${slack.calls.length} (postMessage ${slack.count('chat.postMessage')}, update ${slack.count('chat.update')}, reactions.add ${slack.count('reactions.add')})`)
console.log(`  PRs with exactly one message: ${exactlyOne}/${BURST_PRS}; with more: ${[...perPr.values()].filter((c) => c > 1).length}`)
console.log(`  Slack idle ${idleAfter.toFixed(1)} s after the burst began`)
await sleep(SETTLE_SECONDS * 1000)
console.log(`  resident memory: before ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, ${SETTLE_SECONDS} s after ${rssMiB(server.child.pid).toFixed(0)} MiB`)
await server.stop()
await slack.close()
dir.remove()
