import PQueue from 'p-queue'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'

/** Runs one outbound call (one attempt, not its retries) when a slot is free. */
import type { CallLimit } from '../hosts/contract.ts'

export type { CallLimit }

/**
 * Caps how many git-host calls (path routing's changed files) run at once across all pull requests; Slack
 * calls go through the Slack pacer instead. The cap holds per attempt, not per delivery. After shutdown
 * starts no new call begins.
 */
export function createCallLimit(parallel: number, signal: AbortSignal): CallLimit {
  const slots = new PQueue({ concurrency: parallel })
  return <T>(run: () => Promise<T>) => slots.add(() => {
    if (signal.aborted) throw new ShutdownInterrupt('shutting down')
    return run()
  }) as Promise<T>
}
