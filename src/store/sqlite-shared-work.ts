import { queries } from './queries.ts'
import type { StoreDriver } from './store-driver.ts'
import { deliveryFromRow, type DeliveryRow } from './store-rows.ts'
import type { PullRequestLock, SharedWork } from './store.ts'

const held: PullRequestLock = Object.assign(async () => {}, { lost: new AbortController().signal })

/**
 * SharedWork for a SQLite file, which one server uses (src/store/server-lock.ts): its per-PR mailbox is
 * already the only worker on a pull request, and it replays every pending delivery at start, so there is no
 * lock to take and no other server's lease to take over. Reading a pull request's pending deliveries is real.
 */
export function createSqliteSharedWork(driver: StoreDriver): SharedWork {
  return {
    soleServer: true,
    lockPullRequest: async () => held,
    pendingDeliveriesOf: async (prKey) => (await driver.read<DeliveryRow>(queries.pendingDeliveriesOf, [prKey])).map(deliveryFromRow),
    async renewLeases() {},
    claimExpiredDeliveries: async () => [],
  }
}
