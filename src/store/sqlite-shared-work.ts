import type { SqliteDatabase } from './open-database.ts'
import { deliveryFromRow, type DeliveryRow } from './store-rows.ts'
import type { SharedWork } from './store.ts'

const release = async () => {}

/**
 * SharedWork for a SQLite file, which one server uses (src/store/server-lock.ts): its per-PR mailbox is
 * already the only worker on a pull request, and it replays every pending delivery at start, so there is no
 * lock to take and no other server's lease to take over. Reading a pull request's pending deliveries is real.
 */
export function createSqliteSharedWork(db: SqliteDatabase): SharedWork {
  const pendingOf = db.prepare<[string], DeliveryRow>(
    'SELECT seq, provider, delivery_id, pr_key, event, received_at FROM deliveries WHERE pr_key = ? AND applied_at IS NULL ORDER BY seq')
  return {
    lockPullRequest: async () => release,
    async pendingDeliveriesOf(prKey) {
      return pendingOf.all(prKey).map(deliveryFromRow)
    },
    async renewLeases() {},
    async claimExpiredDeliveries() {
      return []
    },
  }
}
