import { setTimeout as sleep } from 'node:timers/promises'
import { checkOut, type CheckedOut } from './check-out.ts'
import type { PostgresPool } from './postgres-pool.ts'
import { queries } from './queries.ts'
import { deliveryFromRow, type DeliveryRow } from './store-rows.ts'
import type { PullRequestLock, SharedWork } from './store.ts'

// Per-pull-request advisory locks use the two-key form (namespace, hash of the pr key): they never meet the
// migration lock, which uses the one-bigint form. Two pull requests whose keys hash alike only wait for each other.
const PR_LOCK_NAMESPACE = 0x707268 // "prh"
const TRY_LOCK = 'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked'
// A batch's lock: taken only while one of its deliveries is pending, in one round trip. "If the condition's
// result is true, the value of the CASE expression is the result that follows the condition, and the
// remainder of the CASE expression is not processed" (postgresql.org/docs, Conditional Expressions; only
// IMMUTABLE functions may be evaluated early, at planning, and pg_try_advisory_lock is volatile), so no
// lock is taken when none is. pg_try_advisory_lock "will not wait for the lock to become available. It will
// either obtain the lock immediately and return true, or return false if the lock cannot be acquired
// immediately" (postgresql.org/docs, Advisory Lock Functions). NULL: nothing pending; false: held.
const TRY_BATCH_LOCK = `SELECT CASE WHEN EXISTS (SELECT 1 FROM deliveries WHERE provider = $3 AND delivery_id = ANY($4::text[]) AND applied_at IS NULL AND parked_at IS NULL)
  THEN pg_try_advisory_lock($1, hashtext($2)) END AS locked`
const UNLOCK = 'SELECT pg_advisory_unlock($1, hashtext($2)) AS unlocked'
// Lease times are on PostgreSQL's clock, never a replica's: a replica whose clock runs ahead would otherwise
// see every other replica's live lease as run out and take it. The time the statement started, unix ms.
export const DATABASE_NOW_MS = '(extract(epoch from statement_timestamp()) * 1000)::bigint'
// A lease held by another server and not expired is left alone: renewing only extends what is ours.
const RENEW = `UPDATE deliveries SET lease_owner = $1, lease_expires_at = ${DATABASE_NOW_MS} + $2
  WHERE provider = $3 AND delivery_id = ANY($4::text[]) AND applied_at IS NULL
    AND (lease_owner IS NULL OR lease_owner = $1 OR lease_expires_at < ${DATABASE_NOW_MS})`
// A row never leased (lease_owner NULL) is its receiver's until received_at plus the lease: received_at is the
// receiver's clock, so that one window (until the receiver's first renewal, a third of a lease) leans on it.
// SKIP LOCKED: two servers sweeping at once each claim different rows, and neither waits for the other.
const CLAIM_EXPIRED = `UPDATE deliveries d SET lease_owner = $1, lease_expires_at = ${DATABASE_NOW_MS} + $2
  FROM (SELECT seq FROM deliveries
    WHERE applied_at IS NULL AND parked_at IS NULL AND coalesce(lease_expires_at, received_at + $2) < ${DATABASE_NOW_MS}
    ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED) expired
  WHERE d.seq = expired.seq
  RETURNING d.seq, d.provider, d.delivery_id, d.pr_key, d.event, d.received_at`

export interface PostgresSharedWorkDeps {
  pool: PostgresPool
  /**
   * Where per-pull-request locks live: a lock is a session's, so it holds one connection for as long as the
   * pull request's batch runs (Slack calls included). A pool of their own keeps them from taking every
   * connection the batches' queries need; without one, they share `pool`.
   */
  lockPool?: PostgresPool
  /** True once the store is closing: a lock still waited for gives up. */
  closing: () => boolean
}

/** SharedWork for PostgreSQL: advisory locks per pull request and leases on pending deliveries. */
export function createPostgresSharedWork(deps: PostgresSharedWorkDeps): SharedWork {
  const lockPool = deps.lockPool ?? deps.pool
  const released: Array<(prKey: string) => Promise<void>> = []
  const tryLock = (client: CheckedOut['client'], prKey: string) =>
    client.query<{ locked: boolean }>(TRY_LOCK, [PR_LOCK_NAMESPACE, prKey]).then((result) => result.rows[0]?.locked === true)
  /** The lock `held` (a connection whose session holds it), as the release its holder calls once. */
  const holding = (prKey: string, held: CheckedOut): PullRequestLock => {
    const { client, lost, release: giveBack } = held
    let done = false
    const release = async () => {
      if (done) return
      done = true
      // A lock that cannot be given back must not go back to the pool with its connection: destroy that.
      const unlocked = !lost.aborted && await client.query(UNLOCK, [PR_LOCK_NAMESPACE, prKey]).then(() => true, () => false)
      giveBack(!unlocked)
      // Only now, with the unlock answered (or the connection, and its session's lock, gone): a batch that
      // found the lock held before this point had committed its deliveries before, so what the listeners
      // read from here on sees them.
      if (!deps.closing()) for (const listener of released) await listener(prKey)
    }
    return Object.assign(release, { lost })
  }
  return {
    soleServer: false,
    async lockPullRequest(prKey) {
      // A lock is its connection's: if that drops (a restart, a failover), the lock is gone with it. The
      // connection's error listener turns that into `lost`, never a crash.
      const held = await checkOut(lockPool)
      try {
        // Polled rather than waited for in pg_advisory_lock: a blocked query could not be given up at shutdown.
        for (let waitMs = 5; !(await tryLock(held.client, prKey)); waitMs = Math.min(waitMs * 2, 200)) {
          if (deps.closing()) throw new Error(`the store closed while waiting for the lock of ${prKey}`)
          await sleep(waitMs)
        }
      } catch (error) {
        held.release(true)
        throw error
      }
      return holding(prKey, held)
    },
    async tryLockPullRequest(prKey, batch) {
      const held = await checkOut(lockPool)
      let locked: boolean | null | undefined
      try {
        locked = (await held.client.query<{ locked: boolean | null }>(TRY_BATCH_LOCK, [PR_LOCK_NAMESPACE, prKey, batch.provider, batch.deliveryIds])).rows[0]?.locked
      } catch (error) {
        held.release(true)
        throw error
      }
      if (locked === true) return holding(prKey, held)
      held.release()
      return locked === false ? 'held' : 'applied'
    },
    onLockReleased: (listener) => void released.push(listener),
    async pendingDeliveriesOf(prKey) {
      return (await deps.pool.query<DeliveryRow>(queries.pendingDeliveriesOf.postgres, [prKey])).rows.map(deliveryFromRow)
    },
    async pendingDeliveryIdsOf(prKey) {
      return (await deps.pool.query<{ delivery_id: string }>(queries.pendingDeliveryIdsOf.postgres, [prKey])).rows.map((r) => r.delivery_id)
    },
    async renewLeases({ owner, leaseMs, provider, deliveryIds }) {
      if (deliveryIds.length === 0) return
      await deps.pool.query(RENEW, [owner, leaseMs, provider, deliveryIds])
    },
    async claimExpiredDeliveries({ owner, leaseMs, limit }) {
      const { rows } = await deps.pool.query<DeliveryRow>(CLAIM_EXPIRED, [owner, leaseMs, limit])
      return rows.map(deliveryFromRow).sort((a, b) => a.seq - b.seq)
    },
  }
}
