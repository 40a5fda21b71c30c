import type { CallLimit } from './contract.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'

/** The clock a gate waits on; tests pass a fake one whose sleep only records. */
export interface GateClock {
  now(): number
  sleep(ms: number): Promise<void>
}

/** Thrown by a call whose answer says the budget is spent: when it is worth trying again. */
// A plain field, not a parameter property: the acknowledging thread loads this file (through the host registry)
// as TypeScript in the tests, and Node's type stripping has no parameter properties.
export class RateLimited extends Error {
  readonly resumeAt: number
  constructor(resumeAt: number) {
    super('rate limited')
    this.resumeAt = resumeAt
  }
}

export interface HostRateGateDeps {
  /** The host's name (GitHub, GitLab, Bitbucket), for the messages. */
  host: string
  /** The git-host call slots every call runs in. */
  limit: CallLimit
  clock: GateClock
  /** A hold longer than this stops the run instead of waiting it out. */
  maxWaitMs: number
  onWait?: (waitMs: number, resumeAt: number) => void
}

export interface HostRateGate {
  /** Runs one call in a slot after any hold; a RateLimited answer holds every call and tries again. */
  run<T>(call: () => Promise<T>): Promise<T>
  /** Holds every call until `resumeAt` (unix ms): an answer said the budget is now spent. */
  hold(resumeAt: number): void
}

const HELD = Symbol('held')

/** Tries of one call that keeps being answered "rate limited" (a hold each time) before the run stops. */
const MAX_TRIES = 5

/**
 * Keeps a run within the git host's budget: a call waits while the budget is known to be spent, and a
 * call answered "rate limited" waits and tries again. A wait longer than `maxWaitMs` stops the run with
 * `git_host_rate_limited`, and every later call fails the same way at once, without asking the host.
 */
export function createHostRateGate(deps: HostRateGateDeps): HostRateGate {
  let holdUntil = 0
  let stopped: PrheraldError | undefined

  const stop = (resumeAt: number) => new PrheraldError(
    'git_host_rate_limited',
    `${deps.host} API rate limit reached; it resets at ${new Date(resumeAt).toISOString()}`,
    { fix: `rerun prherald-reconcile after ${new Date(resumeAt).toISOString()}; pull requests not checked yet are left as they are`, retryAfterMs: resumeAt - deps.clock.now() },
  )

  const waitOut = async () => {
    // Every caller that finds a hold waits for it; the hold may be extended while they sleep.
    for (;;) {
      if (stopped) throw stopped
      const waitMs = holdUntil - deps.clock.now()
      if (waitMs <= 0) return
      if (waitMs > deps.maxWaitMs) throw (stopped = stop(holdUntil))
      deps.onWait?.(waitMs, holdUntil)
      await deps.clock.sleep(waitMs)
    }
  }

  const hold = (resumeAt: number) => {
    holdUntil = Math.max(holdUntil, resumeAt)
  }

  return {
    hold,
    async run<T>(call: () => Promise<T>): Promise<T> {
      for (let tries = 1; ; ) {
        await waitOut()
        try {
          // Checked again once a slot is free: a call that queued for it may meet a hold set meanwhile. It
          // gives the slot back rather than sleep in it, so the server's other git-host calls are not held up.
          return await deps.limit(async () => {
            if (stopped) throw stopped
            if (holdUntil > deps.clock.now()) throw HELD
            try {
              return await call()
            } catch (error) {
              // Held before the slot is given back, so the call next in line sees it.
              if (error instanceof RateLimited) hold(error.resumeAt)
              throw error
            }
          })
        } catch (error) {
          if (error === HELD) continue
          if (!(error instanceof RateLimited)) throw error
          if (tries++ >= MAX_TRIES) throw (stopped = stop(error.resumeAt))
        }
      }
    },
  }
}

/**
 * Runs `call` through the gate, turning a 429 whose error carries its wait (`retryAfterMs`) into RateLimited,
 * so the gate waits it out and tries again: for hosts whose client reports the wait on the error.
 */
export function runWaitingOut<T>(gate: HostRateGate, clock: GateClock, call: () => Promise<T>): Promise<T> {
  return gate.run(async () => {
    try {
      return await call()
    } catch (error) {
      if (isPrheraldError(error, 'git_host') && error.retryAfterMs !== undefined) throw new RateLimited(clock.now() + error.retryAfterMs)
      throw error
    }
  })
}
