import { setTimeout as sleep } from 'node:timers/promises'
import { foldEvents } from '../machines/fold-events.ts'
import { hostOf } from '../src/hosts/registry.ts'
import { isCheckDelivery } from '../machines/pull-request-event.ts'
import type { PullRequestEvent } from '../machines/pull-request-event.ts'
import { DEFAULTS } from '../src/config/settings.ts'
import { SLACK_PUBLISHED_LIMITS } from '../test/helpers/slack-published-limits.ts'
import { renderMessage } from '../src/slack/render-message.ts'
import type { FakeSlack } from '../test/helpers/fake-slack.ts'
import type { SlackLimitGate } from '../test/helpers/slack-limit-gate.ts'
import { githubExample } from '../test/helpers/github-examples.ts'
import { runLoad, type Delivery, type LoadResult } from './load.ts'
import type { Sign } from './correctness-burst.ts'

type Json = Record<string, any>

/** Repository `repo-k` of Codertocat is mapped to channel k; pull request n lives in repo-(n mod channels). */
export const pacedMappings = (channels: number) =>
  ({ Codertocat: Object.fromEntries(Array.from({ length: channels }, (_, k) => [`repo-${k}`, { channel: channelOf(k) }])) })
const channelOf = (k: number) => `C${String(k).padStart(10, '0')}`

interface Sent { event: string; id: string; payload: Json; delivery: Delivery }

function inRepo(payload: Json, k: number): Json {
  payload.repository.name = `repo-${k}`
  payload.repository.full_name = `Codertocat/repo-${k}`
  return payload
}

/** The same six deliveries as the correctness burst (opened, its retry, three reviews, a comment), in repo-k. */
function deliveriesOf(n: number, channels: number, sign: Sign): Sent[] {
  const k = n % channels
  const sent = (event: string, payload: Json): Sent => {
    const delivery = sign(event, payload)
    return { event, id: delivery.headers['x-github-delivery']!, payload, delivery }
  }
  const opened = githubExample('pull_request', 'opened') as Json
  opened.number = n
  opened.pull_request.number = n
  opened.pull_request.draft = false
  const review = (state: string, user: string) => {
    const p = githubExample('pull_request_review', 'submitted') as Json
    p.pull_request.number = n
    p.pull_request.draft = false
    p.review.state = state
    p.review.user.login = user
    p.sender.login = user
    // One title everywhere: the examples differ, and the message shows the title of whichever event came last.
    p.pull_request.title = opened.pull_request.title
    return sent('pull_request_review', inRepo(p, k))
  }
  const comment = githubExample('issue_comment', 'created') as Json
  comment.issue.number = n
  comment.issue.state = 'open'
  comment.issue.title = opened.pull_request.title
  comment.issue.pull_request = { html_url: `https://github.com/Codertocat/repo-${k}/pull/${n}` }
  const first = sent('pull_request', inRepo(opened, k))
  return [first, first, review('approved', 'carol'), review('commented', 'dave'), review('changes_requested', 'erin'), sent('issue_comment', inRepo(comment, k))]
}

/** What the limits allow at best for one pull request, from the deliveries in the order they were sent. */
interface Expected { text: string; reactions: string[]; minimum: number; folded: number; update: boolean }

function expectedOf(sent: Sent[]): Expected {
  const seen = new Set<string>()
  const events: PullRequestEvent[] = []
  for (const s of sent) {
    if (seen.has(s.id)) continue
    seen.add(s.id)
    const decoded = hostOf('github').delivery.decode(s.event, s.id, s.payload)
    if (!('ignored' in decoded) && !isCheckDelivery(decoded)) events.push(decoded)
  }
  const render = (n: number) => {
    const next = foldEvents(undefined, events.slice(0, n)).next!
    return { next, text: renderMessage({ lifecycle: next, mentions: [] }).text }
  }
  const first = render(1)
  const last = render(events.length)
  const reactions = last.next.context.reactions.map((key) => DEFAULTS.reactions[key]).sort()
  const update = first.text !== last.text
  // The post goes out when the first delivery comes in, since later ones cannot be known; everything after it
  // folds into one update. `folded` is the bound if every delivery had arrived before the post.
  return { text: last.text, reactions, minimum: 1 + reactions.length + (update ? 1 : 0), folded: 1 + reactions.length, update }
}

/** The least time Slack's published limits (the fake Slack's table) allow for `calls` of `method` (per channel where the limit is per channel), in Slack ms. */
function floorMs(counts: Map<string, number>): { ms: number; by: string } {
  let best = { ms: 0, by: 'none' }
  for (const [key, n] of counts) {
    const [method, channel] = key.split(' ') as [string, string | undefined]
    for (const limit of SLACK_PUBLISHED_LIMITS[method] ?? []) {
      if ((limit.per === 'channel') !== (channel !== undefined)) continue
      const ms = (Math.max(0, n - limit.burst) * 60_000) / limit.perMinute
      if (ms > best.ms) best = { ms, by: `${key} (${n} calls)` }
    }
  }
  return best
}

export interface PacedReport { lines: string[]; acks: LoadResult; ok: boolean }

/**
 * 500 pull requests across 10 channels, six deliveries each in random order, against a fake Slack that
 * enforces the limits (429 + Retry-After) on a clock `scale` times faster than the wall clock, and a
 * prherald whose pacer runs on the same scale. Waits until every message shows its final state.
 */
export async function runPacedBurst(options: {
  url: string; slack: FakeSlack; gate: SlackLimitGate; sign: Sign; prs: number; channels: number; scale: number
  concurrency: number; timeoutSeconds: number; bareUrl: string
}): Promise<PacedReport> {
  const { slack, gate, prs, channels, scale } = options
  const perPr = Array.from({ length: prs }, (_, i) => deliveriesOf(i + 1, channels, options.sign))
  const order = perPr.flat()
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  // The order each pull request's deliveries were sent in decides what it should end as, and the least it costs.
  const sentOf = new Map<number, Sent[]>()
  for (const s of order) {
    const n = Number(s.payload.number ?? s.payload.pull_request?.number ?? s.payload.issue?.number)
    sentOf.set(n, [...(sentOf.get(n) ?? []), s])
  }
  const expected = new Map<number, Expected & { channel: string }>()
  for (const [n, sent] of sentOf) expected.set(n, { ...expectedOf(sent), channel: channelOf(n % channels) })

  slack.calls.length = 0
  slack.messages.clear()
  gate.refused.length = 0
  const t0 = Date.now()
  const acks = await runLoad(`${options.url}/webhook/github`, (i) => order[i]!.delivery, { total: order.length, concurrency: options.concurrency, maxSeconds: 60 })
  // Gives up early once Slack has heard nothing for 10 s: whatever is not final by then never will be.
  let calls = -1
  let changedAt = Date.now()
  const lastCall = () => {
    if (slack.calls.length !== calls) [calls, changedAt] = [slack.calls.length, Date.now()]
    return changedAt
  }
  const isFinal = (n: number) => {
    const want = expected.get(n)!
    const got = [...slack.messages.values()].filter((m) => m.channel === want.channel && m.text === want.text)
    return got.length === 1 && [...got[0]!.reactions].sort().join() === want.reactions.join()
  }
  let pending = [...expected.keys()]
  while (pending.length > 0 && Date.now() - t0 < options.timeoutSeconds * 1000 && Date.now() - lastCall() < 10_000) {
    await sleep(50)
    pending = pending.filter((n) => !isFinal(n))
  }
  const finalMs = Date.now() - t0
  const stuck = pending.slice(0, 3).map((n) => {
    const want = expected.get(n)!
    const got = [...slack.messages.values()].filter((m) => m.text.includes(`#${n}:`)).map((m) => `${m.channel} "${m.text}" [${[...m.reactions].sort().join()}]`)
    return `    PR #${n}: want ${want.channel} "${want.text}" [${want.reactions.join()}]; got ${got.join(' | ') || 'nothing'}`
  })
  // The bare server's p99 for the same deliveries, in the same run, right after.
  const bare = await runLoad(`${options.bareUrl}/webhook/github`, (i) => order[i]!.delivery, { total: order.length, concurrency: options.concurrency, maxSeconds: 60 })

  const writes = slack.calls.filter((c) => c.method !== 'auth.test' && c.method !== 'conversations.info')
  const made = writes.length - gate.refused.length
  const minimum = [...expected.values()].reduce((a, e) => a + e.minimum, 0)
  const folded = [...expected.values()].reduce((a, e) => a + e.folded, 0)
  const counts = new Map<string, number>()
  const add = (key: string, n = 1) => counts.set(key, (counts.get(key) ?? 0) + n)
  for (const e of expected.values()) {
    add('chat.postMessage')
    add(`chat.postMessage ${e.channel}`)
    add('reactions.add', e.reactions.length)
    if (e.update) add('chat.update')
  }
  const floor = floorMs(counts)
  const floorRealS = floor.ms / scale / 1000
  const burstMinutes = (finalMs * scale) / 60_000
  const messagesPerPr = new Map<string, number>()
  for (const m of slack.messages.values()) messagesPerPr.set(/#(\d+):/.exec(m.text)?.[1] ?? '?', (messagesPerPr.get(/#(\d+):/.exec(m.text)?.[1] ?? '?') ?? 0) + 1)
  const duplicates = [...messagesPerPr.values()].filter((c) => c > 1).length
  const ok = pending.length === 0 && duplicates === 0 && acks.completed === order.length
  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  const method = (name: string) => writes.filter((c) => c.method === name).length
  return {
    ok,
    acks,
    lines: [
      `  acknowledged ${acks.completed}/${order.length} (${acks.perSecond.toFixed(0)}/s, p50 ${acks.p50.toFixed(2)} ms, p99 ${acks.p99.toFixed(2)} ms); `
        + `bare node:http, same deliveries, same run: p99 ${bare.p99.toFixed(2)} ms; ratio ${ratio(acks.p99, bare.p99)} (target <= 3)`,
      `  Slack calls made ${made} (${(made / prs).toFixed(2)} per PR: chat.postMessage ${method('chat.postMessage')}, chat.update ${method('chat.update')}, `
        + `reactions.add ${method('reactions.add')}, reactions.remove ${method('reactions.remove')}, less the 429s)`,
      `  minimum ${minimum} (${(minimum / prs).toFixed(2)} per PR: one post when the first delivery arrives, the net reactions, one update if later `
        + `deliveries change what it shows); ratio ${ratio(made, minimum)} (target <= 1.2); against all-folded (${(folded / prs).toFixed(2)} per PR) ${ratio(made, folded)}`,
      `  429s ${gate.refused.length} over ${burstMinutes.toFixed(1)} Slack minutes in ${channels} channels: ${(gate.refused.length / channels / Math.max(1, burstMinutes)).toFixed(2)} per channel per minute (target <= 1)`,
      `  every message final after ${(finalMs / 1000).toFixed(1)} s (${(finalMs * scale / 60_000).toFixed(1)} Slack minutes)${pending.length ? `; ${pending.length} PRs NOT FINAL` : ''}; `
        + `floor ${floorRealS.toFixed(1)} s (${(floor.ms / 60_000).toFixed(1)} Slack minutes, set by ${floor.by}); ratio ${ratio(finalMs / 1000, floorRealS)} (target <= 1.3)`,
      ...stuck,
      `  messages: ${slack.messages.size} for ${prs} PRs, ${duplicates} PRs with more than one`,
      `  paced burst: ${ok ? 'PASS' : 'FAIL'}`,
    ],
  }
}
