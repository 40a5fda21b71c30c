import { budgetKey, SLACK_RATE_LIMITS, type RateLimit, type SlackMethod } from '../../src/slack/rate-limits.ts'

/** Decides, for one incoming call, whether a Slack that enforces its limits would refuse it. */
export interface SlackLimitGate {
  /** undefined: allowed (and spent). Otherwise the Retry-After, in whole Slack seconds, of the 429. */
  check(method: string, channel: string | undefined): number | undefined
  /** Every refused call, in order. */
  refused: Array<{ method: string; channel: string | undefined }>
}

/**
 * Token buckets with Slack's published limits (the same table the pacer reads), on a clock that may run
 * `scale` times faster than the wall clock so a bench fits in minutes. `jitterMs` of wall time is forgiven
 * per call: the pacer and this fake run in different processes, and a call sent the moment its token is due
 * can arrive a few milliseconds "early" by the fake's clock when the previous one was delayed in transit.
 */
export function createSlackLimitGate(options: { scale?: number; jitterMs?: number; limits?: Record<SlackMethod, readonly RateLimit[]> } = {}): SlackLimitGate {
  const scale = options.scale ?? 1
  const limits = options.limits ?? SLACK_RATE_LIMITS
  const forgiven = (options.jitterMs ?? 5) * scale
  const start = performance.now()
  const now = () => (performance.now() - start) * scale
  const buckets = new Map<string, { tokens: number; at: number }>()
  const refused: SlackLimitGate['refused'] = []

  return {
    refused,
    check(method, channel) {
      const own = (limits as Record<string, readonly RateLimit[] | undefined>)[method]
      if (!own) return undefined
      const t = now()
      const state = own.map((limit) => {
        const key = budgetKey(method as SlackMethod, limit.scope, channel ?? '')
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
