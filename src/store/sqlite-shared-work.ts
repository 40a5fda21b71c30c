import { queries } from './queries.ts'
import type { StoreDriver } from './store-driver.ts'
import { deliveryFromRow, type DeliveryRow } from './store-rows.ts'
import type { PullRequestLock, SharedWork } from './store.ts'

/** Never aborted: a lock in this process's memory cannot be lost while the process lives. */
const NEVER_LOST = new AbortController().signal

/**
 * SharedWork for a SQLite file, which one server uses (src/store/server-lock.ts): it replays every pending
 * delivery at start, so there is no other server's lease to take over. The pull-request lock is this
 * process's own: the per-PR mailbox already runs one batch at a time, and the lock keeps the work beside it
 * (recovered intents, left comments) off the same pull request, as PostgreSQL's advisory lock does across
 * replicas: one contract for both stores. Reading a pull request's pending deliveries is real.
 */
export function createSqliteSharedWork(driver: StoreDriver): SharedWork {
  /** Per pull request, the end of the last holder's turn: a new holder waits for it. */
  const turns = new Map<string, Promise<void>>()
  async function lockPullRequest(prKey: string): Promise<PullRequestLock> {
    const before = turns.get(prKey)
    let endTurn!: () => void
    const turn = new Promise<void>((resolve) => { endTurn = resolve })
    const mine = (before ?? Promise.resolve()).then(() => turn)
    turns.set(prKey, mine)
    await before
    let released = false
    const release = async () => {
      if (released) return
      released = true
      endTurn()
      if (turns.get(prKey) === mine) turns.delete(prKey)
    }
    return Object.assign(release, { lost: NEVER_LOST })
  }
  return {
    soleServer: true,
    lockPullRequest,
    // No other server holds a lock here: a batch waits for this process's holder (the mailbox already runs
    // the pull request's batches one at a time), so nobody leaves deliveries for a release to pick up; and
    // nobody else applies them, so the batch itself reads what is pending.
    tryLockPullRequest: (prKey) => lockPullRequest(prKey),
    onLockReleased() {},
    pendingDeliveriesOf: async (prKey) => (await driver.read<DeliveryRow>(queries.pendingDeliveriesOf, [prKey])).map(deliveryFromRow),
    pendingDeliveryIdsOf: async (prKey) => (await driver.read<{ delivery_id: string }>(queries.pendingDeliveryIdsOf, [prKey])).map((r) => r.delivery_id),
    async renewLeases() {},
    claimExpiredDeliveries: async () => [],
  }
}
