import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { DeliveryStore } from '../store/store.ts'

/** The longest wait between two tries of a failing batch. */
export const MAX_BACKOFF_MS = 300_000

export interface BatchRetryDeps {
  store: DeliveryStore
  logger: Logger
  /** Failed batches of a pull request before its pending deliveries are parked (database.retry_attempts). */
  attempts: number
  /** The first wait; it doubles up to MAX_BACKOFF_MS (database.retry_backoff_seconds). */
  backoffMs: number
  /** Gives the deliveries back to the pull request's mailbox once the wait is over. */
  retry: (events: readonly LifecycleEvent[]) => void
}

export interface BatchRetry {
  succeeded(prKey: string): void
  /** Counts the failure in the store, then parks the deliveries or schedules the next try. True when parked. */
  failed(prKey: string, events: readonly LifecycleEvent[], error: unknown): Promise<boolean>
  /** Failed batches whose next try is waiting for its time (none for a parked pull request). */
  scheduled(): number
  /** Parked deliveries as last counted (at start, at each park and every minute): for /healthz. */
  parked(): number
  refreshParked(): Promise<void>
  /** Cancels the scheduled tries: their deliveries stay pending for the next start (or another replica). */
  stop(): void
}

/**
 * Failed batches are retried with backoff rather than at the next start or the next delivery, and a batch
 * that keeps failing parks its deliveries instead of trying forever: kept in the store, counted in /metrics
 * and /healthz, replayed by `prherald-migrate replay-parked` once the cause is fixed. The count is the
 * store's, so it survives restarts and is shared by replicas; the wait is this process's.
 */
export function createBatchRetry(deps: BatchRetryDeps): BatchRetry {
  const failures = new Map<string, number>()
  const timers = new Set<NodeJS.Timeout>()
  let parked = 0
  const refreshParked = async () => {
    parked = await deps.store.pendingDeliveryStats().then((s) => s.parked, () => parked)
  }
  const refresher = setInterval(() => void refreshParked(), 60_000)
  refresher.unref()

  return {
    succeeded(prKey) {
      if (failures.delete(prKey)) deps.logger.debug('pull request batch succeeded after a failed one', { pr_key: prKey })
    },
    async failed(prKey, events, error) {
      const failure = (failures.get(prKey) ?? 0) + 1
      failures.set(prKey, failure)
      // The store may be what failed: then this try is not counted, and the batch is tried again all the same.
      const newlyParked = await deps.store.recordFailedBatch(prKey, deps.attempts).catch(() => 0)
      const facts = { pr_key: prKey, attempt: failure, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined }
      if (newlyParked > 0) {
        failures.delete(prKey)
        parked += newlyParked
        deps.logger.error('deliveries parked after too many failed attempts; fix the cause, then run prherald-migrate replay-parked', {
          ...facts, parked: newlyParked, attempts: deps.attempts,
        })
        return true
      }
      const delayMs = Math.min(MAX_BACKOFF_MS, deps.backoffMs * 2 ** (failure - 1))
      deps.logger.error('delivery failed; it stays pending and is retried', { ...facts, retry_in_ms: delayMs })
      const timer = setTimeout(() => {
        timers.delete(timer)
        deps.logger.debug('failed batch handed back for its retry', { pr_key: prKey, attempt: failure })
        deps.retry(events)
      }, delayMs)
      timers.add(timer)
      return false
    },
    scheduled: () => timers.size,
    parked: () => parked,
    refreshParked,
    stop() {
      clearInterval(refresher)
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
    },
  }
}
