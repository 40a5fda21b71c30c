import type { StoredLifecycle } from '../../machines/decide.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import type { ReactionSettings } from '../config/settings.ts'
import type { BatchRetry } from '../mailbox/batch-retry.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { DeliveryStore, PullRequestRef, SharedWork } from '../store/store.ts'
import type { SlackChange } from './plan-changes.ts'

/**
 * A change of a message that settled after its batch's pull-request lock was gone. It may have been on its
 * way to Slack while another replica took the lock and wrote a later state, and landed after that write
 * (Slack has no conditional update): the message may be a step behind what the database holds.
 */
export interface LostLockChange {
  ref: PullRequestRef
  channel: string
  /** What the batch was bringing the message to (an update may have left it showing this). */
  next: StoredLifecycle
  /** The repository's reactions, after inheritance, as the batch planned with them. */
  reactions: ReactionSettings
  change: SlackChange
}

/** How long batches may hold the event loop before they let the acknowledgement path in. */
const SLICE_MS = 1
let sliceStart = performance.now()

/**
 * Acks first: a batch calls this between its steps (lock, fold, plan, commit). Once batches have held the
 * event loop for SLICE_MS, it waits for the next turn (setImmediate runs after the loop's I/O phase), so that
 * reading, verifying and committing a delivery never waits behind more than a slice of processing. On SQLite
 * a batch whose Slack calls answer at once is otherwise one chain of resolved promises, and 64 of them ran
 * back to back while deliveries queued in the socket (ack p99 3.6-4.4 x bare in the load run).
 */
export async function yieldToAcks(): Promise<void> {
  if (performance.now() - sliceStart < SLICE_MS) return
  await new Promise<void>((resolve) => setImmediate(resolve))
  sliceStart = performance.now()
}

/** One batch, as handed to everything it calls: nothing about it is read from ambient state. */
export interface BatchContext {
  prKey: string
  /**
   * Aborted when the database connection holding the pull request's lock breaks: the batch's next Slack
   * call (the pacer checks it) and its commit are refused, and its deliveries stay pending.
   */
  lost: AbortSignal
  /** Changes that settled after `lost` was aborted: the pull request's next batch repaints over them. */
  changedAfterLoss: LostLockChange[]
}

export interface BatchRunnerDeps {
  store: SharedWork & DeliveryStore
  /** Folds, plans, makes the Slack writes and commits (apply-deliveries.ts). */
  apply: (events: readonly LifecycleEvent[], batch: BatchContext) => Promise<void>
  /** Brings messages changed after a lost lock back to the stored state (repaint-after-loss.ts). */
  repaint: (lost: readonly LostLockChange[], batch: BatchContext) => Promise<void>
  /** The server's: a failed batch is retried with backoff, or parked. Without it the failure is thrown. */
  retries?: BatchRetry
  /** The server's leases on the batch's deliveries, given up once the batch is over (kept until a retry). */
  release?: (events: readonly LifecycleEvent[]) => void
}

export interface BatchRunner {
  /** One batch of the pull request `prKey`: the deliveries its mailbox gathered are the reason to look. */
  run(prKey: string, events: readonly LifecycleEvent[]): Promise<void>
  /** An intake committed this delivery and hands it over: its batch need not read it back. */
  fresh(event: LifecycleEvent): void
  /** The store may hold pending deliveries of this pull request that its mailbox does not (a replay). */
  unsure(prKey: string): void
}

/**
 * Owns a pull request's batch from start to end, whoever runs it (the server's mailboxes, a local
 * reconcile): the lock in the store (PostgreSQL: an advisory lock, so no other replica works on it
 * meanwhile; SQLite: nothing to take) -> the pending deliveries, in arrival order -> fold, plan, Slack
 * writes and commit (`apply`) -> the repaint owed by an earlier batch that lost its lock -> retry or park
 * -> lease release. The deliveries are only the reason to look: another replica may have applied them
 * (skipped), or accepted earlier ones (applied first, so the order holds across replicas).
 *
 * Pending deliveries are not read back where this server is the only one (`SharedWork.soleServer`) and the
 * batch is surely everything pending: every event in it was handed over by an intake right after its own
 * commit (`fresh`, counted once: a retry hands back the same events), and nothing else of its pull request
 * may be pending. A failed batch, a replay, or a read that found more than its batch loses that (`unsure`)
 * until a read finds only its own. At the bench's rate reading a batch back cost more than the rest of it.
 *
 * Where other servers share the database, a batch that finds its pull request's lock held by another server
 * neither waits nor polls: it leaves its deliveries (committed, pending) to the holder and ends, giving up
 * its leases. The holder cannot miss them: this batch's intake committed them before this batch tried the
 * lock; the try failed because the holder's session held the lock, so it came before the holder's unlock;
 * and the holder reads the pull request's pending deliveries only after its unlock has been answered
 * (`onLockReleased`, src/mailbox/create-deliveries.ts), in a statement of its own, which under PostgreSQL's
 * read committed sees every transaction committed before it began. It hands what it finds to its mailbox,
 * whose fold gathers it with whatever else arrives meanwhile into its next batch. And a batch none of whose
 * deliveries is pending any more (another server's batch read them with its own) takes no lock at all: the
 * same statement tries the lock only while one is (`tryLockPullRequest`). So replicas sharing a pull
 * request's deliveries do not each run a batch for their share, and none polls. If the holder dies first,
 * its leases and the left ones run out, and any replica's sweep takes them over (src/mailbox/lease-keeper.ts).
 * A batch that owes a repaint (below) waits for the lock instead: the repaint is this server's to make.
 */
export function createBatchRunner(deps: BatchRunnerDeps): BatchRunner {
  const sole = deps.store.soleServer
  const fresh = new WeakSet<LifecycleEvent>()
  const unsure = new Set<string>()
  // By pull request: changes that settled after their batch's lock was gone, repainted over at the pull
  // request's next batch (the failed batch's retry, a second or so later), under the lock again.
  const owed = new Map<string, readonly LostLockChange[]>()

  const take = (prKey: string, events: readonly LifecycleEvent[]) => {
    let known = sole && !unsure.has(prKey)
    for (const event of events) if (!fresh.delete(event)) known = false
    return known ? events : undefined
  }

  /** The delivery ids applied (none when another server's batch applied them), or undefined when another server holds the lock and takes the batch over. */
  const underLock = async (prKey: string, events: readonly LifecycleEvent[], known: readonly LifecycleEvent[] | undefined): Promise<string[] | undefined> => {
    await yieldToAcks()
    const lock = owed.has(prKey) || events.length === 0
      ? await deps.store.lockPullRequest(prKey)
      : await deps.store.tryLockPullRequest(prKey, { provider: events[0]!.provider, deliveryIds: events.map((e) => e.deliveryId) })
    if (lock === 'held') return undefined
    if (lock === 'applied') return []
    const batch: BatchContext = { prKey, lost: lock.lost, changedAfterLoss: [] }
    try {
      // A known event is applied exactly as the store would hand it back; one this release cannot read fails the batch.
      const pending = known ? known.map(deps.store.readBack) : (await deps.store.pendingDeliveriesOf(prKey)).map((d) => {
        if (!d.event) throw d.unreadable
        return d.event
      })
      if (pending.length > 0) await deps.apply(pending, batch)
      const lost = owed.get(prKey)
      if (lost) {
        await deps.repaint(lost, batch)
        owed.delete(prKey)
      }
      return pending.map((e) => e.deliveryId)
    } finally {
      // The batch awaited each of its changes, so by now every one has settled: the repaint comes after them.
      if (batch.changedAfterLoss.length > 0) owed.set(prKey, [...(owed.get(prKey) ?? []), ...batch.changedAfterLoss])
      await lock()
    }
  }

  return {
    fresh: (event) => void (sole && fresh.add(event)),
    unsure: (prKey) => void (sole && unsure.add(prKey)),
    async run(prKey, events) {
      try {
        const applied = await underLock(prKey, events, take(prKey, events))
        if (!applied) return deps.release?.(events)
        const batch = new Set(events.map((e) => e.deliveryId))
        if (applied.every((id) => batch.has(id))) unsure.delete(prKey)
        else if (sole) unsure.add(prKey)
        deps.retries?.succeeded(prKey)
      } catch (error) {
        if (sole) unsure.add(prKey)
        if (!deps.retries) throw error
        // A failed batch keeps its leases until its retry (so no other replica sweeps it meanwhile); shutdown
        // or parking gives them up. What shutdown interrupts stays pending for the next start.
        if (!(error instanceof ShutdownInterrupt) && !(await deps.retries.failed(prKey, events, error))) return
      }
      deps.release?.(events)
    },
  }
}
