import Database from 'better-sqlite3'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FakeSlack } from '../test/helpers/fake-slack.ts'
import { githubExample } from '../test/helpers/github-examples.ts'
import { memoryInUseMiB } from '../test/helpers/memory-in-use.ts'
import { runLoad, type Delivery } from './load.ts'
import { rssMiB, type Child } from './processes.ts'

export type Sign = (event: string, payload: unknown, deliveryId?: string) => Delivery
type Payload = Record<string, unknown> & { pull_request: { number: number; draft: boolean }; number: number }

export function openedPayload(number: number): Payload {
  const p = githubExample('pull_request', 'opened') as Payload
  p.number = number
  p.pull_request.number = number
  p.pull_request.draft = false
  return p
}

/** Six deliveries per PR: opened, its retry (same delivery id), three reviews and a conversation comment. */
/** The burst's deliveries, `prs` x 6 (pull requests `first` on), in random order. */
export function shuffledBurst(prs: number, sign: Sign, first = 1): Delivery[] {
  return shuffled(Array.from({ length: prs }, (_, i) => deliveriesFor(first + i, sign)).flat())
}

/**
 * The same burst, each delivery addressed to replica (pull request number mod `replicas`): every delivery of
 * a pull request goes to the same replica, as a load balancer keyed on the pull request would send them.
 */
export function pullRequestAffineBurst(prs: number, sign: Sign, replicas: number): Delivery[] {
  return shuffled(Array.from({ length: prs }, (_, i) => deliveriesFor(i + 1, sign).map((d) => ({ ...d, target: (i + 1) % replicas }))).flat())
}

function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}

function deliveriesFor(n: number, sign: Sign): Delivery[] {
  const first = sign('pull_request', openedPayload(n))
  const review = (state: string, user: string) => {
    const p = githubExample('pull_request_review', 'submitted') as Payload & { review: { state: string; user: { login: string } } }
    p.pull_request.number = n
    p.review.state = state
    p.review.user.login = user
    return sign('pull_request_review', p)
  }
  const comment = githubExample('issue_comment', 'created') as { issue: { number: number; pull_request?: unknown } }
  comment.issue.number = n
  comment.issue.pull_request = { html_url: `https://github.com/Codertocat/Hello-World/pull/${n}` }
  return [first, { ...first }, review('approved', 'carol'), review('commented', 'dave'), review('changes_requested', 'erin'), sign('issue_comment', comment)]
}

export interface BurstReport {
  ok: boolean
  lines: string[]
  /** Resident memory at the peak less before the burst, MiB. */
  growthMiB: number
  /** Acknowledged deliveries per second over the burst (the issue's own mix: processing with a Slack call per change). */
  perSecond: number
  /** Heap used plus external memory `settleSeconds` after the burst less before it, MiB (the idle target). */
  idleAboveStartMiB: number
}

/**
 * Sends `prs` x 6 deliveries in random order to a running prherald, waits until the fake Slack has been
 * quiet for a second (bounded by `idleTimeoutSeconds`), then checks that each PR has exactly one message and
 * nothing is left pending, and samples resident memory before, at peak and `settleSeconds` after.
 */
export async function runCorrectnessBurst(options: {
  server: Child
  slack: FakeSlack
  databasePath: string
  sign: Sign
  prs: number
  concurrency: number
  idleTimeoutSeconds: number
  settleSeconds: number
}): Promise<BurstReport> {
  const { server, slack, prs } = options
  const burst = shuffledBurst(prs, options.sign)
  slack.calls.length = 0
  slack.messages.clear()
  const inUseBefore = await memoryInUseMiB(`${server.url}/metrics`)
  const before = rssMiB(server.child.pid)
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(server.child.pid)) }, 100)
  const t0 = Date.now()
  const acks = await runLoad(`${server.url}/webhook/github`, (i) => burst[i]!, { total: burst.length, concurrency: options.concurrency, maxSeconds: 60 })
  let lastCalls = -1
  let idleSince = Date.now()
  while (Date.now() - idleSince < 1000 && Date.now() - t0 < options.idleTimeoutSeconds * 1000) {
    await sleep(100)
    if (slack.calls.length !== lastCalls) [lastCalls, idleSince] = [slack.calls.length, Date.now()]
  }
  const idleAfter = (idleSince - t0) / 1000
  const timedOut = Date.now() - idleSince < 1000
  clearInterval(sampler)

  const perPr = new Map<number, number>()
  for (const m of slack.messages.values()) {
    const n = Number(/#(\d+):/.exec(m.text)?.[1])
    perPr.set(n, (perPr.get(n) ?? 0) + 1)
  }
  const counts = Array.from({ length: prs }, (_, i) => perPr.get(i + 1) ?? 0)
  const exactlyOne = counts.filter((c) => c === 1).length
  const db = new Database(options.databasePath, { readonly: true })
  const pending = (db.prepare('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL').get() as { n: number }).n
  db.close()
  await sleep(options.settleSeconds * 1000)
  const after = rssMiB(server.child.pid)
  const inUseAfter = await memoryInUseMiB(`${server.url}/metrics`)

  const ok = acks.completed === burst.length && exactlyOne === prs && pending === 0 && !timedOut
  return {
    ok,
    growthMiB: peak - before,
    perSecond: acks.perSecond,
    idleAboveStartMiB: inUseAfter - inUseBefore,
    lines: [
      `  acknowledged ${acks.completed}/${burst.length} with 200 (${acks.perSecond.toFixed(0)}/s, p50 ${acks.p50.toFixed(2)} ms, p99 ${acks.p99.toFixed(2)} ms)`,
      `  Slack calls ${slack.calls.length}: chat.postMessage ${slack.count('chat.postMessage')}, chat.update ${slack.count('chat.update')}, reactions.add ${slack.count('reactions.add')}, reactions.remove ${slack.count('reactions.remove')}`,
      `  messages per PR: exactly 1 for ${exactlyOne}/${prs}, none for ${counts.filter((c) => c === 0).length}, more than 1 for ${counts.filter((c) => c > 1).length}`,
      `  deliveries still pending in the database: ${pending}`,
      `  Slack idle ${idleAfter.toFixed(1)} s after the burst began${timedOut ? ` (STILL BUSY at the ${options.idleTimeoutSeconds} s limit)` : ''}`,
      `  resident memory: before ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, ${options.settleSeconds} s after idle ${after.toFixed(0)} MiB; `
        + `grew ${(peak - before).toFixed(0)} MiB (target < 48), ${(after - before).toFixed(0)} MiB above the start once idle`,
      `  heap used + external: before ${inUseBefore.toFixed(1)} MiB, ${options.settleSeconds} s after idle ${inUseAfter.toFixed(1)} MiB, `
        + `${(inUseAfter - inUseBefore).toFixed(1)} MiB above the start (target <= 10)`,
      `  correctness: ${ok ? 'PASS' : 'FAIL'}`,
    ],
  }
}

/**
 * The same burst against the bare node:http server (HMAC and JSON.parse, nothing kept): its resident memory
 * before, at peak and `settleSeconds` after, as the baseline for prherald's figures in the same run. Parsing
 * thousands of 21 KB payloads a second makes garbage in any Node server; this shows how much of prherald's
 * growth that alone accounts for.
 */
export async function runBareBurstMemory(options: { server: Child; url: string; sign: Sign; prs: number; concurrency: number; settleSeconds: number; prheraldPerSecond?: number }): Promise<string> {
  const burst = shuffledBurst(options.prs, options.sign)
  const before = rssMiB(options.server.child.pid)
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(options.server.child.pid)) }, 100)
  const acks = await runLoad(options.url, (i) => burst[i]!, { total: burst.length, concurrency: options.concurrency, maxSeconds: 60 })
  clearInterval(sampler)
  await sleep(options.settleSeconds * 1000)
  const after = rssMiB(options.server.child.pid)
  const ratio = options.prheraldPerSecond === undefined ? '' : `; prherald / bare ${(options.prheraldPerSecond / acks.perSecond).toFixed(2)}`
  return `  bare node:http, the same burst (${acks.completed}/${burst.length} acknowledged, ${acks.perSecond.toFixed(0)}/s${ratio}): resident memory before ${before.toFixed(0)} MiB, `
    + `peak ${peak.toFixed(0)} MiB, ${options.settleSeconds} s after ${after.toFixed(0)} MiB; grew ${(peak - before).toFixed(0)} MiB, `
    + `${(after - before).toFixed(0)} MiB above the start`
}
