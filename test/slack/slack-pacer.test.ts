import { describe, expect, it } from 'vitest'
import { PrheraldError } from '../../src/errors.ts'
import { ShutdownInterrupt } from '../../src/slack/retry-transient.ts'
import { createSlackPacer, type SlackPacing } from '../../src/slack/slack-pacer.ts'
import { SLACK_RATE_LIMITS, type SlackMethod } from '../../src/slack/rate-limits.ts'
import { manualClock } from '../helpers/manual-clock.ts'

interface Made { method: SlackMethod; channel: string; at: number }

/** A pacer over the manual clock whose calls are recorded with the time they were made. */
function setup(pacing: SlackPacing = 'published', parallel = 8) {
  const time = manualClock()
  const controller = new AbortController()
  const made: Made[] = []
  const holds: Array<{ method: SlackMethod; channel: string; holdMs: number }> = []
  const ended: Array<{ method: SlackMethod; code: string }> = []
  const pacer = createSlackPacer({
    pacing, parallel, signal: controller.signal, clock: time.clock,
    onHold: (method, channel, holdMs) => holds.push({ method, channel, holdMs }),
    onCall: (method, error) => ended.push({ method, code: error === undefined ? 'ok' : (error as PrheraldError).code }),
  })
  /** Queues a call; `answer` decides what Slack says (default: ok). */
  const call = (method: SlackMethod, channel: string, answer: () => Promise<void> = async () => {}) =>
    pacer.call(method, channel, async () => {
      made.push({ method, channel, at: time.clock.now() })
      await answer()
      return channel
    })
  return { time, controller, made, holds, ended, pacer, call }
}

const rateLimited = (seconds: number) => new PrheraldError('slack_rate_limited', 'Slack: rate limited', { retryAfterMs: seconds * 1000 })

describe('the Slack pacer', () => {
  it('never spends more of a Tier 3 budget than it allows: the burst, then one call per 1.2 s', async () => {
    const { time, made, call, pacer } = setup()
    const done = Array.from({ length: 120 }, () => call('reactions.add', 'C1'))
    const [tier3] = SLACK_RATE_LIMITS['reactions.add']
    await time.advance(0)
    expect(made).toHaveLength(tier3!.burst)
    for (let t = 1; t <= 180; t++) {
      await time.advance(1000)
      // By any time t (ms), at most burst + t * 50 / 60000 calls were made.
      expect(made.length).toBeLessThanOrEqual(tier3!.burst + Math.floor((t * 1000 * tier3!.perMinute) / 60_000))
    }
    await Promise.all(done)
    expect(made).toHaveLength(120)
    // In every 60 s window, at most the budget's minute plus its burst.
    for (const first of made) expect(made.filter((m) => m.at >= first.at && m.at < first.at + 60_000).length).toBeLessThanOrEqual(50 + 5)
    expect(pacer.stats()).toEqual({ queued: 0, running: 0, timer: false, budgets: 0 })
  })

  it('posts at most one message a second per channel, while other channels and methods go on', async () => {
    const { time, made, call } = setup()
    for (let i = 0; i < 3; i++) void call('chat.postMessage', 'C1')
    void call('chat.postMessage', 'C2')
    void call('chat.update', 'C1')
    await time.advance(0)
    expect(made.map((m) => `${m.method} ${m.channel}`)).toEqual(['chat.postMessage C1', 'chat.postMessage C2', 'chat.update C1'])
    await time.advance(1000)
    expect(made.filter((m) => m.channel === 'C1' && m.method === 'chat.postMessage')).toHaveLength(2)
    await time.advance(1000)
    expect(made.filter((m) => m.channel === 'C1' && m.method === 'chat.postMessage').map((m) => m.at)).toEqual([0, 1000, 2000])
  })

  it('a 429 on a post holds that channel for Retry-After, not another channel, and retries the call in its place', async () => {
    const { time, made, holds, call } = setup('off')
    let refuse = true
    const first = call('chat.postMessage', 'C1', async () => { if (refuse) { refuse = false; throw rateLimited(5) } })
    await time.advance(0)
    expect(made).toHaveLength(1)
    expect(holds).toEqual([{ method: 'chat.postMessage', channel: 'C1', holdMs: 5000 }])

    const laterOnC1 = call('chat.postMessage', 'C1')
    const onC2 = call('chat.postMessage', 'C2')
    const updateOnC1 = call('chat.update', 'C1')
    await time.advance(4999)
    // The other channel, and other methods in the same channel, were not held.
    expect(made.map((m) => `${m.method} ${m.channel}`)).toEqual(['chat.postMessage C1', 'chat.postMessage C2', 'chat.update C1'])
    await time.advance(1)
    await Promise.all([first, laterOnC1, onC2, updateOnC1])
    // The refused post went again first, then the one queued behind it, both at the end of the hold.
    expect(made.slice(3)).toEqual([{ method: 'chat.postMessage', channel: 'C1', at: 5000 }, { method: 'chat.postMessage', channel: 'C1', at: 5000 }])
  })

  it('tells onCall how each call that ran ended: a 429 and its retry are two calls, a call cut at shutdown none', async () => {
    const { time, controller, ended, call } = setup('off')
    let refuse = true
    const post = call('chat.postMessage', 'C1', async () => { if (refuse) { refuse = false; throw rateLimited(1) } })
    const failing = call('chat.update', 'C1', async () => { throw new PrheraldError('slack_permanent', 'Slack: channel_not_found') })
    await time.advance(0)
    await expect(failing).rejects.toMatchObject({ code: 'slack_permanent' })
    await time.advance(1000)
    await post
    expect(ended).toEqual([
      { method: 'chat.postMessage', code: 'slack_rate_limited' },
      { method: 'chat.update', code: 'slack_permanent' },
      { method: 'chat.postMessage', code: 'ok' },
    ])
    const held = call('reactions.add', 'C1', async () => { throw rateLimited(60) })
    await time.advance(0)
    const waiting = call('reactions.add', 'C1')
    controller.abort()
    await expect(held).rejects.toBeInstanceOf(ShutdownInterrupt)
    await expect(waiting).rejects.toBeInstanceOf(ShutdownInterrupt)
    expect(ended.map((e) => e.method)).toEqual(['chat.postMessage', 'chat.update', 'chat.postMessage', 'reactions.add'])
  })

  it('a 429 on a Tier 3 method holds that method in every channel, not the others', async () => {
    const { time, made, call } = setup('off')
    let refuse = true
    void call('reactions.add', 'C1', async () => { if (refuse) { refuse = false; throw rateLimited(2) } })
    await time.advance(0)
    void call('reactions.add', 'C2')
    void call('reactions.remove', 'C2')
    await time.advance(1000)
    expect(made.map((m) => `${m.method} ${m.channel}`)).toEqual(['reactions.add C1', 'reactions.remove C2'])
    await time.advance(1000)
    expect(made.map((m) => `${m.method} ${m.channel} ${m.at}`)).toEqual(['reactions.add C1 0', 'reactions.remove C2 0', 'reactions.add C1 2000', 'reactions.add C2 2000'])
  })

  it('with pacing off, makes every call at once up to the slots, and passes other errors through', async () => {
    const { time, made, call } = setup('off', 4)
    const calls = Array.from({ length: 10 }, () => call('chat.update', 'C1'))
    await time.advance(0)
    await Promise.all(calls)
    expect(made.every((m) => m.at === 0)).toBe(true)
    const failing = call('chat.update', 'C1', async () => { throw new PrheraldError('slack_permanent', 'Slack: channel_not_found') })
    await expect(failing).rejects.toMatchObject({ code: 'slack_permanent' })
  })

  it('holds no more than `parallel` calls in flight; a call waiting for its budget takes no slot', async () => {
    const { time, made, call } = setup('published', 2)
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    void call('chat.update', 'C1', () => gate)
    void call('chat.update', 'C1', () => gate)
    void call('chat.update', 'C1', () => gate)
    await time.advance(0)
    expect(made).toHaveLength(2)
    release()
    await time.advance(0)
    expect(made).toHaveLength(3)
  })

  it('at shutdown, waiting calls fail with ShutdownInterrupt, no timer is left, and new calls are refused', async () => {
    const { time, controller, call, pacer } = setup()
    const waiting = Array.from({ length: 8 }, () => call('reactions.add', 'C1'))
    await time.advance(0)
    expect(pacer.stats().timer).toBe(true)
    controller.abort()
    const results = await Promise.allSettled(waiting)
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof ShutdownInterrupt)).toHaveLength(3)
    expect(time.timers()).toBe(0)
    await expect(call('reactions.add', 'C1')).rejects.toBeInstanceOf(ShutdownInterrupt)
  })
})
