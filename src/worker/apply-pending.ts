import { readStoredEvent, storedEvent } from '../../machines/stored-json.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { whileHeld } from '../slack/lock-scope.ts'
import type { Store } from '../store/store.ts'
import type { ApplyDeliveries } from './apply-deliveries.ts'
import { changesAfterLoss, type LostLockChange } from './lost-lock-changes.ts'
import type { Repaint } from './repaint-after-loss.ts'

export interface ApplyPendingDeps {
  store: Store
  applyDeliveries: ApplyDeliveries
  /** Brings messages a batch changed after losing its lock back to the stored state (repaint-after-loss.ts). */
  repaint: Repaint
}

/**
 * The mailbox worker of one pull request, whichever server runs it: takes the pull request's lock in the
 * store (PostgreSQL: an advisory lock, so no other replica works on it meanwhile; SQLite: nothing to take),
 * then applies every delivery of the pull request still pending, in arrival order. The deliveries in the
 * mailbox are only the reason to look: another replica may have applied them already (they are skipped),
 * or accepted earlier ones that are not applied yet (they are applied first, so the order holds across
 * replicas). docs/architecture.md, "How replicas share the work".
 */
export function createApplyPending(deps: ApplyPendingDeps) {
  // By pull request: changes that settled after their batch's lock was gone, repainted over at the pull
  // request's next batch here (the failed batch's retry, a second or so later), under the lock again.
  const owed = new Map<string, readonly LostLockChange[]>()
  /**
   * `known`: the batch, when the caller knows it is everything pending (src/mailbox/known-pending.ts); used
   * only where this server is the only one, else the store is read all the same. Resolves to the ids applied.
   */
  return async function applyPending(prKey: string, known?: readonly LifecycleEvent[]): Promise<string[]> {
    const lock = await deps.store.lockPullRequest(prKey)
    try {
      // A known event goes through its stored JSON all the same, so that it is applied exactly as if read back.
      const stored = known && deps.store.soleServer ? known.map(storedEvent) : (await deps.store.pendingDeliveriesOf(prKey)).map((d) => d.event)
      // Under the lock's scope: if the lock is lost mid-batch, the batch's next Slack call fails instead.
      const events = stored.map(readStoredEvent)
      if (events.length > 0) await whileHeld(lock.lost, () => deps.applyDeliveries(events))
      const lost = owed.get(prKey)
      if (lost) {
        await whileHeld(lock.lost, () => deps.repaint(lost))
        owed.delete(prKey)
      }
      return events.map((e) => e.deliveryId)
    } finally {
      // The batch awaited each of its changes, so by now every one has settled: the repaint comes after them.
      const lost = changesAfterLoss(lock.lost)
      if (lost.length > 0) owed.set(prKey, [...(owed.get(prKey) ?? []), ...lost])
      await lock()
    }
  }
}
