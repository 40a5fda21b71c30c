import type { Ignored, IgnoreReason, PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { Logger } from '../log/logger.ts'

/** The one log line for every deliberately ignored delivery; operations.md lists the reasons. */
export function logIgnored(
  logger: Logger,
  reason: IgnoreReason,
  facts: {
    provider: string; deliveryId: string; event?: string | undefined; owner?: string | undefined; repo?: string | undefined; number?: number | undefined
    /** A replayed body: the delivery id it first came with. */
    firstDeliveryId?: string | undefined
  },
): void {
  logger.info('ignored webhook event', {
    reason,
    provider: facts.provider,
    event: facts.event,
    repository: facts.owner && facts.repo ? `${facts.owner}/${facts.repo}` : undefined,
    pr: facts.number,
    delivery_id: facts.deliveryId,
    first_delivery_id: facts.firstDeliveryId,
  })
}

/** A delivery's facts, or a "Start review" click's (its `event` is then `review_click`). */
export function ignoredFacts(e: Pick<PullRequestEvent, 'provider' | 'deliveryId' | 'owner' | 'repo' | 'number'> & { kind: string }): Omit<Ignored, 'ignored' | 'reason'> & { provider: string; deliveryId: string } {
  return { provider: e.provider, deliveryId: e.deliveryId, event: e.kind, owner: e.owner, repo: e.repo, number: e.number }
}
