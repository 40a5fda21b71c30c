import { describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { messagesOf, prDeliveries, statusOf, writeCalls } from './pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * prherald-server as a real process, stopped in the middle of a burst: SIGTERM (graceful, within the
 * shutdown window) and SIGKILL (nothing graceful). Slack is slowed so that work is in flight at the signal;
 * the signal falls after a fixed number of acknowledged deliveries, never after a sleep. The fake Slack is
 * started with anyChannel so that start-up validation (auth.test, conversations.info) succeeds; only
 * message-writing calls are counted.
 */
const CHANNEL = 'C0000000001'
const PRS = Array.from({ length: 20 }, (_, i) => 401 + i)
const WINDOW_SECONDS = 2

const h = usePrherald({
  slack: { anyChannel: true },
  config: {
    server: { log_format: 'json', shutdown_timeout_seconds: WINDOW_SECONDS },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  },
})

function readDatabase(readonly: boolean): { pending: number; rows: Array<{ pr_number: number; ts: string }>; intents: number } {
  const db = new Database(join(h.dir.path, 'prherald.db'), { readonly })
  try {
    const pending = (db.prepare('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL').get() as { n: number }).n
    const rows = db.prepare('SELECT pr_number, ts FROM slack_messages').all() as Array<{ pr_number: number; ts: string }>
    const hasIntents = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'post_intents'").get() as { n: number }
    const intents = hasIntents.n === 0 ? 0 : (db.prepare('SELECT count(*) AS n FROM post_intents').get() as { n: number }).n
    return { pending, rows, intents }
  } finally {
    db.close()
  }
}

type Kind = 'opened' | 'approved' | 'commented'

/**
 * Sends the burst (PR by PR, each PR's three deliveries in order), `parallel` at a time, and calls `signal`
 * once `stopAfter` deliveries are acknowledged. Deliveries sent after that may be refused; any answered
 * 200 "accepted" counts as acknowledged.
 */
async function burst(stopAfter: number, signal: () => void, parallel = 3): Promise<Map<number, Set<Kind>>> {
  const queue = PRS.flatMap((n) => prDeliveries('Codertocat', n).map((d, i) => ({ n, kind: (['opened', 'approved', 'commented'] as const)[i]!, d })))
  const acked = new Map<number, Set<Kind>>()
  let count = 0
  let signalled = false
  const worker = async () => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      const res = await deliver(h.server!.url, 'github', item.d).catch(() => undefined)
      if (res?.status !== 200) continue
      const body = (await res.json().catch(() => ({}))) as { status?: string }
      if (body.status !== 'accepted') continue
      acked.set(item.n, (acked.get(item.n) ?? new Set()).add(item.kind))
      if (++count >= stopAfter && !signalled) {
        signalled = true
        signal()
      }
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  return acked
}

/** Resolves the exit, or fails after `ms` (a hang guard: the assertion is on the exit code, not the time). */
async function exitWithin(ms: number) {
  let timer: NodeJS.Timeout | undefined
  const guard = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no exit within ${ms} ms`)), ms) })
  try {
    return await Promise.race([h.server!.exited, guard])
  } finally {
    clearTimeout(timer)
  }
}

/** Restarts on the same database and waits until every pending delivery has been applied. */
async function restartAndApply(): Promise<Array<Record<string, unknown>>> {
  h.slack.latencyMs = 0
  await h.spawn()
  await waitFor('every pending delivery to be applied', () => readDatabase(true).pending === 0, 30_000)
  h.server!.child.kill('SIGTERM')
  expect(await exitWithin(WINDOW_SECONDS * 1000 + 10_000)).toEqual({ code: 0, signal: null })
  const entries = h.server!.entries()
  h.server = undefined
  return entries
}

/**
 * The tracked message of every acknowledged PR shows at least what was acknowledged, and its reactions
 * agree with its status line (an approval shown with no reaction, say, is a half-applied delivery).
 */
function expectAcknowledgedApplied(acked: Map<number, Set<Kind>>, tracked: Map<number, string>): void {
  for (const [n, kinds] of acked) {
    const ts = tracked.get(n)
    expect(ts, `PR #${n} has a stored message`).toBeDefined()
    const message = h.slack.messages.get(ts!)
    expect(message, `PR #${n}'s stored message exists in Slack`).toBeDefined()
    const status = statusOf(message!)
    if (kinds.has('approved')) expect(status, `PR #${n}`).toContain('Approved by carol')
    if (kinds.has('commented')) expect(status, `PR #${n}`).toContain('1 comment')
    expect(message!.reactions.has('white_check_mark'), `PR #${n} ✅ vs "${status}"`).toBe(status.includes('Approved by carol'))
    expect(message!.reactions.has('speech_balloon'), `PR #${n} 💬 vs "${status}"`).toBe(status.includes('comment'))
  }
}

const trackedMessages = () => new Map(readDatabase(true).rows.map((r) => [r.pr_number, r.ts]))

describe('signals in the middle of a burst', () => {
  it('SIGTERM: exits 0 within the window; after a restart every acknowledged delivery is applied, no PR twice', async () => {
    h.slack.latencyMs = 300 // more work than the window can finish: some deliveries are left for the restart
    await h.spawn()
    const acked = await burst(30, () => h.server!.child.kill('SIGTERM'))
    expect([...acked.values()].reduce((sum, k) => sum + k.size, 0)).toBeGreaterThanOrEqual(30)
    expect(await exitWithin(WINDOW_SECONDS * 1000 + 5_000)).toEqual({ code: 0, signal: null })
    const stopped = h.server!.entries().find((e) => e.msg === 'stopped')
    expect(stopped).toBeDefined()
    const leftPending = readDatabase(false).pending
    console.log(`SIGTERM: ${[...acked.values()].reduce((s, k) => s + k.size, 0)} acknowledged, drained=${String(stopped!.drained)}, ${leftPending} left pending for the restart`)
    if (stopped!.drained === true) expect(leftPending).toBe(0)

    const restart = await restartAndApply()
    const replayed = restart.find((e) => e.msg === 'replaying pending deliveries')
    expect(replayed?.count ?? 0).toBe(leftPending)
    for (const n of PRS) expect(messagesOf(h.slack, 'Codertocat', n).length, `messages of PR #${n}`).toBeLessThanOrEqual(1)
    expectAcknowledgedApplied(acked, trackedMessages())
    expect(readDatabase(true).pending).toBe(0)
  })

  it('SIGKILL: after a restart every acknowledged delivery is applied, and no PR has two messages', async () => {
    h.slack.latencyMs = 300
    await h.spawn()
    const acked = await burst(30, () => h.server!.child.kill('SIGKILL'))
    expect(await exitWithin(10_000)).toEqual({ code: null, signal: 'SIGKILL' })
    h.server = undefined

    // The fake, like Slack, still carries out what it received before the kill; let it finish, so that no
    // late update lands after the restart's.
    await waitFor('calls received before the kill to land', () =>
      h.slack.messages.size === h.slack.count('chat.postMessage')
      && [...h.slack.messages.values()].reduce((sum, m) => sum + m.updates, 0) === h.slack.count('chat.update'))
    const atKill = readDatabase(false)
    expect(atKill.pending).toBeGreaterThan(0) // the kill did fall in the middle of the work
    const stored = new Set(atKill.rows.map((r) => r.ts))
    // Posts Slack carried out whose ts never reached slack_messages: the crash fell between the two. Each
    // has its intent, written before the post.
    const orphans = [...h.slack.messages.values()].filter((m) => !stored.has(m.ts))
    const postsAtKill = h.slack.count('chat.postMessage')
    const writesAtKill = writeCalls(h.slack).length

    const restart = await restartAndApply()
    expect(restart).toContainEqual(expect.objectContaining({ msg: 'replaying pending deliveries', count: atKill.pending }))
    const duplicated = PRS.filter((n) => messagesOf(h.slack, 'Codertocat', n).length > 1)
    console.log(`SIGKILL: ${[...acked.values()].reduce((s, k) => s + k.size, 0)} acknowledged, ${atKill.pending} pending at the kill, `
      + `${postsAtKill} posts and ${writesAtKill} Slack writes before it, ${orphans.length} posts without a stored ts `
      + `(${atKill.intents} intents), ${duplicated.length} PRs with two messages`)
    expect(duplicated).toEqual([])
    expect(atKill.intents).toBeGreaterThanOrEqual(orphans.length)
    // The restart found each orphan by its metadata and adopted it: it is the PR's tracked, updated message.
    if (atKill.intents > 0) {
      expect(restart).toContainEqual(expect.objectContaining({ msg: 'interrupted posts looked up', count: atKill.intents, found: orphans.length }))
    }
    const tracked = trackedMessages()
    for (const orphan of orphans) expect(tracked.get(Number(/^PR #(\d+):/.exec(orphan.text)![1]))).toBe(orphan.ts)
    expectAcknowledgedApplied(acked, tracked)
    expect(readDatabase(true).pending).toBe(0)
    expect(readDatabase(true).intents).toBe(0)
  })
})
