import { AsyncLocalStorage } from 'node:async_hooks'
import { PrheraldError } from '../errors.ts'

// The work of one batch runs inside its lock's scope; the pacer reads it when a call is made, so a lock lost
// mid-batch stops the batch's next Slack call without threading a signal through every step of the worker.
const scope = new AsyncLocalStorage<AbortSignal>()

/** Runs `work` as the work of a batch that holds a pull request while `lost` is not aborted. */
export function whileHeld<T>(lost: AbortSignal, work: () => Promise<T>): Promise<T> {
  return scope.run(lost, work)
}

/** The calling batch's lock, if it runs under one (read when a Slack call is made). */
export function heldLock(): AbortSignal | undefined {
  return scope.getStore()
}

export function lockLostError(lost: AbortSignal): PrheraldError {
  const reason = lost.reason instanceof Error ? lost.reason.message : String(lost.reason)
  return new PrheraldError('database', `the database connection holding this pull request's lock broke (${reason}); the batch stops before its next Slack call and its deliveries stay pending`, {
    fix: 'nothing to do if the database restarted or failed over: the batch is retried on a new connection',
  })
}
