import { isReviewClick, type MachineEvent } from '../../machines/lifecycle-event.ts'
import { pullRequestKey, storedPullRequest, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { Logger } from '../log/logger.ts'
import type { FilterMatch } from '../routing/pull-request-filter.ts'
import type { RouteDecision } from '../routing/route-pull-request.ts'
import { hasMessage, type MessageStore, type SharedWork } from '../store/store.ts'
import { ignoredFacts } from './log-ignored.ts'

function logFiltered(logger: Logger, match: FilterMatch, event: PullRequestEvent): void {
  const facts = ignoredFacts(event)
  logger.info('ignored webhook event', {
    reason: 'filtered', filter: match, provider: facts.provider, event: facts.event, repository: `${event.owner}/${event.repo}`, pr: event.number, delivery_id: event.deliveryId,
  })
}

/**
 * Why the routing decision sends the pull request nowhere, when it is the entry's `only`/`ignore` that keeps
 * it out (a `follow` entry may still send it: then nothing holds it back). Undefined: it goes somewhere, or
 * the decision needs facts only the batch reads.
 */
export function heldBack(decision: RouteDecision): FilterMatch | undefined {
  return decision.targets.length === 0 && !decision.undecided ? decision.gated : undefined
}

/**
 * Whether the mapping entry's `only`/`ignore` keeps this delivery out (answered 200, reason `filtered`). The filter
 * decides whether a pull request is announced: once it has a message, later deliveries keep that message true
 * (a label added afterwards does not take back what the channel was told). So a matching delivery is looked
 * up, and dropped only while the pull request has no message; the store is read only when the filter matches.
 * Decided here only while no batch of the pull request is pending or running, on this server (`busy`, its
 * mailboxes) or on any other (a pending delivery of it in the store, whichever replica accepted it): such a
 * batch may be announcing it right now, so the delivery is accepted and its batch decides (filteredInBatch).
 */
export async function isFiltered(
  deps: { store: MessageStore & Pick<SharedWork, 'soleServer' | 'pendingDeliveriesOf'>; logger: Logger; busy?: (prKey: string) => boolean },
  match: FilterMatch | undefined, event: PullRequestEvent,
): Promise<boolean> {
  const key = pullRequestKey(event)
  if (!match || deps.busy?.(key)) return false
  const rows = await deps.store.findMessages(storedPullRequest(event))
  if (rows.some(hasMessage)) return false
  // With replicas, another server's batch of it may be under way: the store holds its deliveries until applied.
  if (!deps.store.soleServer && (await deps.store.pendingDeliveriesOf(key)).length > 0) return false
  logFiltered(deps.logger, match, event)
  return true
}

/**
 * The same decision inside the pull request's batch, where its state is known: the delivery ids the filter
 * keeps out, those that match while the pull request has no message and no earlier delivery of the batch
 * passed. Their deliveries are applied (recorded as done) without reaching the machine.
 */
export function filteredInBatch(logger: Logger, held: (event: PullRequestEvent) => FilterMatch | undefined, events: readonly MachineEvent[], messageShown: boolean): Set<string> {
  const out = new Set<string>()
  if (messageShown) return out
  for (const event of events) {
    if (isReviewClick(event)) break
    const match = held(event)
    if (!match) break
    logFiltered(logger, match, event)
    out.add(event.deliveryId)
  }
  return out
}
