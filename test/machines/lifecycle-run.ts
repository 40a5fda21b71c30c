import { decide, storesWithoutMessage, type StoredLifecycle } from '../../machines/decide.ts'
import type { Intent } from '../../machines/pull-request.machine.ts'
import type { EventKind, Provider, PullRequestEvent, PullRequestFacts } from '../../machines/pull-request-event.ts'

export interface Facts {
  provider?: Provider
  draft?: boolean
  state?: PullRequestFacts['state']
  title?: string
  actor?: string
  bot?: boolean
  /** The host's updated_at; the default is the same for every event, so only tests about order set it. */
  updatedAt?: string
  /** The host's review id (GitHub `review.id`) on a review or dismissal. */
  reviewId?: string
}

let delivery = 0
/** A decoded event for PR acme/api#7; only what a row of the lifecycle table varies is a parameter. */
export function prEvent(kind: EventKind, facts: Facts = {}): PullRequestEvent {
  delivery += 1
  return {
    provider: facts.provider ?? 'github', deliveryId: `delivery-${delivery}`, owner: 'acme', repo: 'api', number: 7, kind,
    pr: {
      title: facts.title ?? 'Add limits', url: 'https://github.com/acme/api/pull/7', author: 'bob',
      draft: facts.draft ?? false, state: facts.state ?? 'open', createdAt: '2026-11-20T09:30:00Z',
      updatedAt: facts.updatedAt ?? '2026-11-20T10:00:00Z',
    },
    actor: { login: facts.actor ?? 'carol', isBot: facts.bot ?? false },
    ...(facts.reviewId === undefined ? {} : { reviewId: facts.reviewId }),
  }
}

/**
 * Feeds events through decide() as the worker does: the stored snapshot goes through JSON; an ignore is not
 * stored, except one that records an end (decide's contract, storesWithoutMessage).
 */
export function run(...events: PullRequestEvent[]): { stored: StoredLifecycle | undefined; intents: Intent[] } {
  let stored: StoredLifecycle | undefined
  let intents: Intent[] = []
  for (const e of events) {
    const result = decide(stored, e)
    intents = result.intents
    if (!intents.some((i) => i.type === 'ignore') || storesWithoutMessage(result)) stored = JSON.parse(JSON.stringify(result.next)) as StoredLifecycle
  }
  return { stored, intents }
}
