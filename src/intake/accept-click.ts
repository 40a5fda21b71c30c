import { pullRequestKey, storedPullRequest, type Provider } from '../../machines/pull-request-event.ts'
import type { LifecycleEvent, ReviewClick } from '../../machines/lifecycle-event.ts'
import type { Logger } from '../log/logger.ts'
import { hasMessage, type DeliveryStore, type MessageStore } from '../store/store.ts'

export type ClickResult = { status: 'accepted' } | { status: 'ignored'; reason: 'unknown_pull_request' | 'not_its_message' | 'duplicate_click' }

export interface ClickIntakeDeps {
  /** The configured hosts: a button of a host no longer configured is not acted on. */
  providers: readonly Provider[]
  store: DeliveryStore & MessageStore
  logger: Logger
  /** The pull request's mailbox; called once the click is durable. */
  handOff: (event: LifecycleEvent) => void
}

/**
 * A verified "Start review" click: recorded in the intake table like a delivery (same provider column, the
 * pull request's key, an id of its own), then handed to the pull request's mailbox. So a click answered 200
 * is never lost: a crash before it is applied replays it at the next start, in order with the deliveries
 * (docs/reliability.md#start-review-clicks). A click for a pull request without a message (never announced
 * here, or forgotten by cleanup) is answered and logged, and changes nothing.
 */
export function createClickIntake(deps: ClickIntakeDeps) {
  return async function acceptClick(click: ReviewClick): Promise<ClickResult> {
    const facts = { repository: `${click.owner}/${click.repo}`, pr: click.number, slack_user: click.user, delivery_id: click.deliveryId }
    const rows = deps.providers.includes(click.provider)
      ? await deps.store.findMessages(storedPullRequest(click))
      : []
    if (!rows.some(hasMessage)) {
      deps.logger.info('start review click for an unknown pull request', { ...facts, provider: click.provider })
      return { status: 'ignored', reason: 'unknown_pull_request' }
    }
    // The button's value names the pull request; the message it sat on must be that pull request's own.
    if (!rows.some((r) => hasMessage(r) && r.channel === click.channel && r.ts === click.messageTs)) {
      deps.logger.warn('start review click on another message', { ...facts, channel: click.channel, message_ts: click.messageTs })
      return { status: 'ignored', reason: 'not_its_message' }
    }
    const recorded = await deps.store.recordDelivery({
      provider: click.provider, deliveryId: click.deliveryId, prKey: pullRequestKey(click), event: click,
    })
    if (!recorded) {
      deps.logger.info('start review click already recorded', facts)
      return { status: 'ignored', reason: 'duplicate_click' }
    }
    deps.handOff(click)
    return { status: 'accepted' }
  }
}

export type ClickIntake = ReturnType<typeof createClickIntake>
