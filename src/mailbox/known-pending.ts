import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'

/**
 * What this server knows about a pull request's pending deliveries without reading the store. At the
 * bench's rate a batch is about one delivery, and reading it back cost more than the rest of its
 * processing. The knowledge is used only on a database no other server uses (`Store.soleServer`), and only
 * for a batch that is surely everything pending: every event in it was handed over by an intake right after
 * its own commit ("fresh", counted once: a retry hands back the same events, which then are not), and nothing
 * else of its pull request may be pending. That is lost when a batch fails (its deliveries stay pending), when
 * stored deliveries are replayed, and when a read found deliveries outside its batch (they may still be
 * queued as fresh, and must not be applied twice); the next batch that reads finds only its own, or nothing,
 * and wins it back. Anything unsure reads the store, as every batch did before.
 */
export interface KnownPending {
  /** An intake recorded this delivery and is handing it to its pull request's mailbox. */
  fresh(event: LifecycleEvent): void
  /** The store may hold pending deliveries of this pull request that its mailbox does not. */
  unsure(prKey: string): void
  /** The batch itself when it is everything pending of its pull request; undefined when the store must be read. */
  take(prKey: string, events: readonly LifecycleEvent[]): readonly LifecycleEvent[] | undefined
  /** A batch of `events` applied the deliveries `appliedIds` (read from the store, or the known batch). */
  applied(prKey: string, events: readonly LifecycleEvent[], appliedIds: readonly string[]): void
}

/**
 * `soleServer`: the store's; otherwise every batch reads and nothing is kept. Kept otherwise: one entry per
 * pull request whose last batch failed or read more than itself.
 */
export function createKnownPending(soleServer: boolean): KnownPending {
  if (!soleServer) return { fresh: () => {}, unsure: () => {}, take: () => undefined, applied: () => {} }
  // The event objects themselves: no id to forget, and one dropped at shutdown takes its entry with it.
  const fresh = new WeakSet<LifecycleEvent>()
  const unsure = new Set<string>()
  return {
    fresh: (event) => void fresh.add(event),
    unsure: (prKey) => void unsure.add(prKey),
    take(prKey, events) {
      let known = !unsure.has(prKey)
      for (const event of events) if (!fresh.delete(event)) known = false
      return known ? events : undefined
    },
    applied(prKey, events, appliedIds) {
      const batch = new Set(events.map((e) => e.deliveryId))
      if (appliedIds.every((id) => batch.has(id))) unsure.delete(prKey)
      else unsure.add(prKey)
    },
  }
}
