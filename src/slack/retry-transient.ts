import { isPrheraldError } from '../errors.ts'
import type { ShutdownSleep } from './shutdown-sleep.ts'

export interface RetryPolicy {
  baseMs: number
  maxMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1000, maxMs: 60_000 }

/** Thrown when shutdown interrupts a retry loop; the delivery stays pending for the next start. */
export class ShutdownInterrupt extends Error {
  override readonly name = 'ShutdownInterrupt'
}

/**
 * Retries `run` while it fails with `slack_transient`, with capped exponential backoff, until it succeeds
 * or shutdown starts (the sleeps end then). A delivery is acknowledged already, so giving up would lose it;
 * shutdown does not lose it because the intake row stays pending.
 */
export async function retryTransient<T>(
  run: () => Promise<T>,
  options: {
    policy: RetryPolicy; sleep: ShutdownSleep; onRetry: (attempt: number, delayMs: number, error: unknown) => void
    /** At most this many tries, for a write nothing else brings back (the home tab); until shutdown when absent. */
    attempts?: number
  },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (options.sleep.aborted) throw new ShutdownInterrupt('shutting down')
    try {
      return await run()
    } catch (error) {
      if (!isPrheraldError(error, 'slack_transient') || attempt === options.attempts) throw error
      const delay = Math.min(options.policy.maxMs, options.policy.baseMs * 2 ** (attempt - 1))
      options.onRetry(attempt, delay, error)
      await options.sleep.sleep(delay)
    }
  }
}
