import { isPrheraldError, PrheraldError } from '../errors.ts'
import { budgetKey, heldScope, SLACK_RATE_LIMITS, type RateLimit, type SlackMethod } from './rate-limits.ts'
import { systemClock, type PacerClock } from './pacer-clock.ts'
import type { SharedPacingBudget } from '../store/shared-pacing-budget.ts'
import { ShutdownInterrupt } from './retry-transient.ts'

/** `published`: spend Slack's published limits. `off`: no budgets, only the holds a 429 asks for. */
export type SlackPacing = 'published' | 'off'

export interface SlackPacerOptions {
  pacing: SlackPacing
  /** Calls in flight at once, whatever their budgets say: a burst must not open hundreds of sockets. */
  parallel: number
  /** Aborted at shutdown: waiting calls fail with ShutdownInterrupt and nothing new starts. */
  signal: AbortSignal
  clock?: PacerClock
  limits?: Record<SlackMethod, readonly RateLimit[]>
  /** Told about every 429, with how long its budget is now held. */
  onHold?: (method: SlackMethod, channel: string, holdMs: number) => void
  /** Told how every call that ran ended (`error` undefined: it went through), 429s included; for the metrics. */
  onCall?: (method: SlackMethod, error?: unknown) => void
  /** The budget the replicas share (PostgreSQL); none for a single process, whose own buckets are the whole budget. */
  shared?: SharedPacingBudget
  /** The shared budget could not be asked: the call went ahead on this process's own budget. */
  onSharedError?: (error: unknown) => void
}

export interface PacerStats {
  /** Calls waiting for a budget or a slot. */
  queued: number
  running: number
  /** Whether a wake-up timer is set (none once idle). */
  timer: boolean
  /** Budgets and holds remembered (none once idle and refilled). */
  budgets: number
}

export interface SlackPacer {
  /**
   * Runs `run` (one Slack call of `method` in `channel`) once its budgets allow it, in order of arrival.
   * `lost`: the calling batch's lock (worker/run-batch.ts); once it is aborted the call is refused.
   */
  call<T>(method: SlackMethod, channel: string, run: () => Promise<T>, lost?: AbortSignal): Promise<T>
  stats(): PacerStats
}

interface Waiting {
  seq: number
  method: SlackMethod
  channel: string
  /** The budget a 429 on this call holds, and the budgets it spends from: worked out once, at arrival. */
  holdKey: string
  budgets: ReadonlyArray<{ key: string; limit: RateLimit }>
  run: () => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

interface Bucket {
  limit: RateLimit
  tokens: number
  at: number
}

// Float arithmetic must not leave a call a hair short of its token and re-arm a zero-length timer.
const EPSILON = 1e-9

/**
 * The one scheduler for outbound Slack calls. Each call spends a token from every budget of its method
 * (a token bucket per method for the workspace, and per channel for posts); calls sharing a budget go in
 * the order they arrived, and a call whose budget is empty waits without taking a slot, so calls of other
 * methods and channels go on. A 429 holds the budget Slack refused (the channel for a post, the method
 * otherwise) for `Retry-After` and puts the call back in its place: no call is made that is known to be
 * refused. One timer at most, one shutdown listener for the pacer's lifetime, and nothing kept once idle.
 */
export function createSlackPacer(options: SlackPacerOptions): SlackPacer {
  const clock = options.clock ?? systemClock
  const limits = options.limits ?? SLACK_RATE_LIMITS
  const queue: Waiting[] = []
  const buckets = new Map<string, Bucket>()
  const holds = new Map<string, number>()
  let seq = 0
  let running = 0
  let timer: { handle: unknown; at: number } | undefined
  // Budgets whose call is being put to the shared budget: later calls on them wait, so arrival order holds.
  const admitting = new Set<string>()

  const bucket = (key: string, limit: RateLimit, now: number): Bucket => {
    let b = buckets.get(key)
    if (!b) buckets.set(key, (b = { limit, tokens: limit.burst, at: now }))
    b.tokens = Math.min(limit.burst, b.tokens + ((now - b.at) * limit.perMinute) / 60_000)
    b.at = now
    return b
  }

  /** When `w` may start (now, or the latest of its hold and each budget's next token), and the keys that hold it back. */
  const readiness = (w: Waiting, now: number): { at: number; waitingOn: string[] } => {
    const waitingOn: string[] = []
    let at = now
    // A 429 holds the call's hold key; the shared budget's refusal holds the budgets it found short.
    for (const key of new Set([w.holdKey, ...w.budgets.map((b) => b.key)])) {
      const until = holds.get(key) ?? now
      if (until <= now) continue
      waitingOn.push(key)
      at = Math.max(at, until)
    }
    for (const { key, limit } of w.budgets) {
      const b = bucket(key, limit, now)
      if (b.tokens >= 1 - EPSILON) continue
      waitingOn.push(key)
      at = Math.max(at, now + ((1 - b.tokens) * 60_000) / limit.perMinute)
    }
    return { at, waitingOn }
  }

  const pump = () => {
    if (options.signal.aborted) return
    const now = clock.now()
    for (const [key, until] of holds) if (until <= now) holds.delete(key)
    const blocked = new Set<string>()
    let wakeAt = Number.POSITIVE_INFINITY
    for (let i = 0; i < queue.length && running < options.parallel;) {
      const w = queue[i]!
      // A call never overtakes an earlier one that waits on one of its budgets.
      const busy = (key: string) => blocked.has(key) || admitting.has(key)
      if (busy(w.holdKey) || w.budgets.some((b) => busy(b.key))) { i++; continue }
      const { at, waitingOn } = readiness(w, now)
      if (at > now) {
        for (const k of waitingOn) blocked.add(k)
        wakeAt = Math.min(wakeAt, at)
        i++
        continue
      }
      for (const { key, limit } of w.budgets) bucket(key, limit, now).tokens -= 1
      queue.splice(i, 1)
      if (options.shared) admit(w, options.shared)
      else start(w)
    }
    arm(wakeAt)
    if (queue.length === 0 && running === 0) forgetFullBuckets(now)
  }

  const arm = (at: number) => {
    if (timer && timer.at <= at) return
    if (timer) clock.clear(timer.handle)
    timer = undefined
    if (!Number.isFinite(at)) return
    const handle = clock.set(() => {
      timer = undefined
      pump()
    }, Math.max(0, at - clock.now()))
    timer = { handle, at }
  }

  /** A full budget is the same as none: dropping it keeps memory flat however many channels were posted to. */
  const forgetFullBuckets = (now: number) => {
    for (const [key, b] of buckets) if (bucket(key, b.limit, now).tokens >= b.limit.burst - EPSILON) buckets.delete(key)
    for (const [key, until] of holds) if (until <= now) holds.delete(key)
    // Nothing waits, so nothing needs waking; a hold still in force is kept and checked by the next call.
    if (timer) {
      clock.clear(timer.handle)
      timer = undefined
    }
  }

  /** Puts a call back in its place in the queue, behind the calls that arrived before it. */
  const requeue = (w: Waiting) => {
    const at = queue.findIndex((q) => q.seq > w.seq)
    queue.splice(at < 0 ? queue.length : at, 0, w)
  }

  /** Asks the shared budget; refused, the call gives back its local tokens and waits for what was short. */
  const admit = (w: Waiting, shared: SharedPacingBudget) => {
    running++
    const keys = [w.holdKey, ...w.budgets.map((b) => b.key)]
    for (const key of keys) admitting.add(key)
    shared.take(w.budgets, w.holdKey).catch((error: unknown) => {
      // Fail open: this process's own buckets still pace it, and Slack's 429s still hold it.
      options.onSharedError?.(error)
      return { granted: true } as const
    }).then((admission) => {
      running--
      for (const key of keys) admitting.delete(key)
      if (options.signal.aborted) return w.reject(new ShutdownInterrupt('shutting down'))
      if (admission.granted) return start(w)
      const now = clock.now()
      for (const { key, limit } of w.budgets) bucket(key, limit, now).tokens = Math.min(limit.burst, bucket(key, limit, now).tokens + 1)
      for (const { key, waitMs } of admission.short) holds.set(key, Math.max(holds.get(key) ?? 0, now + Math.max(1, waitMs)))
      requeue(w)
      pump()
    })
  }

  const start = (w: Waiting) => {
    running++
    w.run().then((value) => {
      options.onCall?.(w.method)
      w.resolve(value)
    }, (error: unknown) => {
      options.onCall?.(w.method, error)
      if (!isPrheraldError(error, 'slack_rate_limited')) return w.reject(error)
      if (options.signal.aborted) return w.reject(new ShutdownInterrupt('shutting down'))
      const holdMs = Math.max(1000, error.retryAfterMs ?? 1000)
      const now = clock.now()
      holds.set(w.holdKey, Math.max(holds.get(w.holdKey) ?? 0, now + holdMs))
      for (const { key, limit } of w.budgets) bucket(key, limit, now).tokens = Math.min(0, bucket(key, limit, now).tokens)
      options.onHold?.(w.method, w.channel, holdMs)
      options.shared?.hold(w.holdKey, w.budgets, holdMs).catch((e: unknown) => options.onSharedError?.(e))
      requeue(w)
    }).finally(() => {
      running--
      pump()
    })
  }

  options.signal.addEventListener('abort', () => {
    if (timer) clock.clear(timer.handle)
    timer = undefined
    for (const w of queue.splice(0)) w.reject(new ShutdownInterrupt('shutting down'))
  }, { once: true })

  return {
    call<T>(method: SlackMethod, channel: string, run: () => Promise<T>, lost?: AbortSignal): Promise<T> {
      if (options.signal.aborted) return Promise.reject(new ShutdownInterrupt('shutting down'))
      // A batch whose pull request's lock is gone makes no further call: another server may hold it now.
      if (lost?.aborted) return Promise.reject(lockLostError(lost))
      // Checked again when its turn comes: the lock may go while the call waits for its budget.
      const guarded = lost ? () => (lost.aborted ? Promise.reject(lockLostError(lost)) : run()) : run
      return new Promise<T>((resolve, reject) => {
        queue.push({
          seq: seq++, method, channel, run: guarded, resolve: resolve as (value: unknown) => void, reject,
          holdKey: budgetKey(method, heldScope(method), channel),
          budgets: (options.pacing === 'off' ? [] : limits[method]).map((limit) => ({ key: budgetKey(method, limit.scope, channel), limit })),
        })
        pump()
      })
    },
    stats: () => {
      if (queue.length === 0 && running === 0) forgetFullBuckets(clock.now())
      return { queued: queue.length, running, timer: timer !== undefined, budgets: buckets.size + holds.size }
    },
  }
}

export function lockLostError(lost: AbortSignal): PrheraldError {
  const reason = lost.reason instanceof Error ? lost.reason.message : String(lost.reason)
  return new PrheraldError('database', `the database connection holding this pull request's lock broke (${reason}); the batch stops before its next Slack call and its deliveries stay pending`, {
    fix: 'nothing to do if the database restarted or failed over: the batch is retried on a new connection',
  })
}
