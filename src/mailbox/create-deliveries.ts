import { pullRequestKey } from '../../machines/pull-request-event.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { DeliveryStore, SharedWork } from '../store/store.ts'
import type { AcksInFlight } from './acks-in-flight.ts'
import { createBatchRetry, type BatchRetry } from './batch-retry.ts'
import { createLeaseKeeper, type LeaseKeeper } from './lease-keeper.ts'
import { createMailboxes, type Mailboxes } from './mailboxes.ts'

/** What runs one pull request's batch (the worker's batch runner), given the retries and the lease release. */
export interface DeliveryBatches {
  run(prKey: string, events: readonly LifecycleEvent[]): Promise<void>
}

export interface DeliveriesDeps<B extends DeliveryBatches> {
  store: DeliveryStore & SharedWork
  logger: Logger
  /** This server's replica id (the leases' owner). */
  owner: string
  /** database.retry_attempts, database.retry_backoff_seconds and database.lease_seconds, in ms where a time. */
  attempts: number
  backoffMs: number
  leaseMs: number
  /** Builds the batch runner over the retries and the lease release made here. */
  batches: (server: { retries: BatchRetry; release: (events: readonly LifecycleEvent[]) => void }) => B
  /** How many batches run at once, and how many while requests are being answered (acks first). */
  parallel: number
  parallelWhileAcking: number
  foldMs: number
  acks: Pick<AcksInFlight, 'busy' | 'onQuiet'>
}

export interface Deliveries<B extends DeliveryBatches> {
  retries: BatchRetry
  /** The batch runner the mailboxes run. */
  batches: B
  leases: LeaseKeeper
  mailboxes: Mailboxes<LifecycleEvent>
  /** Holds the delivery's lease and queues it in its pull request's mailbox. */
  handOff(event: LifecycleEvent): void
  /**
   * Stops taking over and retrying (what is left pending, another replica or the next start finishes), then
   * waits for the mailboxes until `deadline`. When they do not empty in time, `cutOff` is called (work
   * waiting on Slack gives up), queued work is dropped and stays pending in the store. True when drained.
   */
  stop(deadline: number, cutOff: () => void): Promise<boolean>
}

/**
 * The deliveries' part of the service: the mailboxes that run each pull request's batches in order, the
 * retries of failed batches and the leases that keep and take over deliveries across replicas.
 */
export function createDeliveries<B extends DeliveryBatches>(deps: DeliveriesDeps<B>): Deliveries<B> {
  const { store, logger } = deps
  // The one loop among the parts: a failed batch's deliveries (after their wait) and a stopped replica's (taken
  // over) go back into the mailboxes, and the mailboxes run batches that use the retries and leases built
  // first. `repost` is that way back; it is pointed at the mailboxes as soon as they exist, below.
  let repost = (_event: LifecycleEvent): void => undefined
  const retries = createBatchRetry({
    store, logger, attempts: deps.attempts, backoffMs: deps.backoffMs,
    retry: (events) => { for (const event of events) repost(event) },
  })
  const leases = createLeaseKeeper({ store, logger, owner: deps.owner, leaseMs: deps.leaseMs, handOff: (event) => repost(event) })
  const batches = deps.batches({ retries, release: (events) => leases.done(events) })
  const mailboxes = createMailboxes<LifecycleEvent>((key, events) => batches.run(key, events),
    (key, error) => logger.error('delivery failed; it stays pending', { pr_key: key, ...errorFields(error) }),
    { foldMs: deps.foldMs, parallel: deps.parallel, acks: deps.acks, parallelWhileAcking: deps.parallelWhileAcking })
  repost = (event) => mailboxes.post(pullRequestKey(event), event)
  const handOff = (event: LifecycleEvent) => {
    leases.hold(event)
    mailboxes.post(pullRequestKey(event), event)
  }
  // The hand-over between replicas (src/worker/run-batch.ts): once this server has given a pull request's
  // lock back, another server's batch may have found it held and left its deliveries here. They are looked
  // for now, after the unlock, and what is not already in this server's mailboxes joins them (the mailbox
  // folds it into the pull request's next batch). The ids first: mostly what is pending is this server's
  // own, queued behind the batch that just ended, and reading the deliveries themselves is for when it is
  // not. A read that fails leaves them to the leases: their sweep takes them over once they run out. A
  // delivery this release cannot read is skipped: the batch that reads it says why.
  store.onLockReleased(async (prKey) => {
    try {
      if ((await store.pendingDeliveryIdsOf(prKey)).every((id) => leases.holds(id))) return
      for (const left of await store.pendingDeliveriesOf(prKey)) if (left.event && !leases.holds(left.deliveryId)) handOff(left.event)
    } catch (error) {
      logger.warn('could not look for deliveries left to this server; the lease sweep takes them over', { pr_key: prKey, ...errorFields(error) })
    }
  })

  return {
    retries, leases, mailboxes, batches, handOff,
    async stop(deadline, cutOff) {
      retries.stop()
      await leases.stop()
      const drained = await mailboxes.drain(Math.max(0, deadline - Date.now()))
      if (drained) return true
      // Whatever did not finish stays in the intake table and is replayed at the next start.
      cutOff()
      mailboxes.clear()
      await mailboxes.drain(1000)
      return false
    },
  }
}
