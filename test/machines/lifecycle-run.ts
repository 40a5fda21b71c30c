import { decide, storesWithoutMessage, type StoredLifecycle } from '../../machines/decide.ts'
import type { Intent, ReactionKey } from '../../machines/pull-request.machine.ts'
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

/** decide()'s intent, then the emoji the planner adds and removes: the difference between the two snapshots. */
export type Effect = Intent | { type: 'addReaction'; reaction: ReactionKey } | { type: 'removeReaction'; reaction: ReactionKey }

/**
 * Feeds events through decide() as the worker does: the stored snapshot goes through JSON; an ignore is not
 * stored, except one that records an end (decide's contract, storesWithoutMessage). `intents`: the last
 * event's, with the reactions that changed.
 */
export function run(...events: PullRequestEvent[]): { stored: StoredLifecycle | undefined; intents: Effect[] } {
  let stored: StoredLifecycle | undefined
  let intents: Effect[] = []
  for (const e of events) {
    const result = decide(stored, e)
    const ignored = result.intents.some((i) => i.type === 'ignore')
    const before = stored?.context.reactions ?? []
    const after = result.next.context.reactions
    intents = ignored ? result.intents : [
      ...result.intents,
      ...after.filter((r) => !before.includes(r)).map((reaction) => ({ type: 'addReaction' as const, reaction })),
      ...before.filter((r) => !after.includes(r)).map((reaction) => ({ type: 'removeReaction' as const, reaction })),
    ]
    if (!ignored || storesWithoutMessage(result)) stored = JSON.parse(JSON.stringify(result.next)) as StoredLifecycle
  }
  return { stored, intents }
}
