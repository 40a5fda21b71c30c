import { monitorEventLoopDelay } from 'node:perf_hooks'
import { SLACK_PUBLISHED_LIMITS, type PublishedLimit } from './slack-published-limits.ts'

/** Decides, for one incoming call, whether a Slack that enforces its limits would refuse it. */
export interface SlackLimitGate {
  /** undefined: allowed (and spent). Otherwise the Retry-After, in whole Slack seconds, of the 429. */
  check(method: string, channel: string | undefined): number | undefined
  /** Every refused call, in order. */
  refused: Array<{ method: string; channel: string | undefined }>
  /** Stops measuring stalls (`stalls: true`). */
  close(): void
  /** Moves Slack's clock on by `ms` (of the gate's time): a test whose scenario lets minutes pass lets them pass for Slack's budgets too. */
  advance(ms: number): void
}

/** How far back a stall is forgiven: longer than any one budget's gap between two calls (1.2 s at 50 a minute). */
const STALL_WINDOW_MS = 2500

/**
 * Token buckets with Slack's published limits (the fake's own table, test/helpers/slack-published-limits.ts), on a clock that may run
 * `scale` times faster than the wall clock so a bench fits in minutes. `jitterMs` of wall time is forgiven
 * per call: the pacer and this fake run in different processes, and a call sent the moment its token is due
 * can arrive a few milliseconds "early" by the fake's clock when the previous one was delayed in transit.
 * `stalls`: the fake runs in the test's process, beside prherald, and on a loaded machine that process's event
 * loop stalls for a time slice or more (hundreds of ms seen at a load of 18 on 2 cores), so the previous
 * call can arrive that much late and the next one that much "early". The longest stall measured in the last
 * STALL_WINDOW_MS is forgiven on top of `jitterMs`: what the machine did, not a guess.
 */
export function createSlackLimitGate(options: { scale?: number; jitterMs?: number; stalls?: boolean; limits?: Readonly<Record<string, readonly PublishedLimit[]>> } = {}): SlackLimitGate {
  const scale = options.scale ?? 1
  const limits = options.limits ?? SLACK_PUBLISHED_LIMITS
  const start = performance.now()
  let advanced = 0
  const now = () => (performance.now() - start) * scale + advanced
  const loop = options.stalls ? monitorEventLoopDelay({ resolution: 10 }) : undefined
  loop?.enable()
  // Each check's stall: the longest loop delay since the check before it, kept for STALL_WINDOW_MS.
  const stalls: Array<{ at: number; ms: number }> = []
  const stallMs = (at: number): number => {
    if (!loop) return 0
    stalls.push({ at, ms: loop.max / 1e6 })
    loop.reset()
    while (stalls[0]!.at < at - STALL_WINDOW_MS) stalls.shift()
    return Math.max(...stalls.map((s) => s.ms))
  }
  const buckets = new Map<string, { tokens: number; at: number }>()
  const refused: SlackLimitGate['refused'] = []

  return {
    refused,
    close: () => loop?.disable(),
    advance: (ms) => { advanced += ms },
    check(method, channel) {
      const own = Object.hasOwn(limits, method) ? limits[method] : undefined
      if (!own) return undefined
      const forgiven = ((options.jitterMs ?? 5) + stallMs(performance.now())) * scale
      const t = now()
      const state = own.map((limit) => {
        const key = limit.per === 'channel' ? `${method} ${channel ?? ''}` : method
        const b = buckets.get(key) ?? { tokens: limit.burst, at: t }
        b.tokens = Math.min(limit.burst, b.tokens + ((t - b.at) * limit.perMinute) / 60_000)
        b.at = t
        buckets.set(key, b)
        return { limit, b, grace: (forgiven * limit.perMinute) / 60_000 }
      })
      const short = state.filter(({ b, grace }) => b.tokens + grace < 1)
      if (short.length === 0) {
        for (const { b } of state) b.tokens -= 1
        return undefined
      }
      refused.push({ method, channel })
      const waitMs = Math.max(...short.map(({ limit, b }) => ((1 - b.tokens) * 60_000) / limit.perMinute))
      return Math.max(1, Math.ceil(waitMs / 1000))
    },
  }
}
