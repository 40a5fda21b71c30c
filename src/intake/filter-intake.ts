import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { Logger } from '../log/logger.ts'
import { filterMatch, type PullRequestFilter } from '../routing/pull-request-filter.ts'
import { hasMessage, type Store } from '../store/store.ts'
import { ignoredFacts } from './log-ignored.ts'

/**
 * Whether the mapping entry's `ignore` keeps this delivery out (answered 200, reason `filtered`). The filter
 * decides whether a pull request is announced: once it has a message, later deliveries keep that message true
 * (a label added afterwards does not take back what the channel was told). So a matching delivery is looked
 * up, and dropped only while the pull request has no message; the store is read only when the filter matches.
 */
export async function isFiltered(deps: { store: Store; logger: Logger }, filter: PullRequestFilter, event: PullRequestEvent): Promise<boolean> {
  const match = filterMatch(filter, event)
  if (!match) return false
  const rows = await deps.store.findMessages({ provider: event.provider, repository: `${event.owner}/${event.repo}`, prNumber: event.number })
  if (rows.some(hasMessage)) return false
  const facts = ignoredFacts(event)
  deps.logger.info('ignored webhook event', {
    reason: 'filtered', filter: match, provider: facts.provider, event: facts.event, repository: `${event.owner}/${event.repo}`, pr: event.number, delivery_id: event.deliveryId,
  })
  return true
}
