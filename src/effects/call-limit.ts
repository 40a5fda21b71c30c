import PQueue from 'p-queue'
import { ShutdownInterrupt } from './retry-transient.ts'

/** Runs one outbound call (one attempt, not its retries) when a slot is free. */
export type CallLimit = <T>(run: () => Promise<T>) => Promise<T>

/**
 * Caps how many Slack and git-host calls run at once across all pull requests. Slack rate-limits per
 * workspace anyway, and a burst of deliveries should spend the event loop on acknowledging them. The cap
 * holds per attempt, not per delivery: a pull request waiting out a retry backoff holds no slot, so a few
 * PRs stuck on a failing channel never hold up healthy ones. After shutdown starts no new call begins.
 */
export function createCallLimit(parallel: number, signal: AbortSignal): CallLimit {
  const slots = new PQueue({ concurrency: parallel })
  return <T>(run: () => Promise<T>) => slots.add(() => {
    if (signal.aborted) throw new ShutdownInterrupt('shutting down')
    return run()
  }) as Promise<T>
}
