import type { Reviewer } from './pull-request-event.ts'
import type { LifecycleState, StoredLifecycle } from './decide.ts'
import type { FoldStep } from './fold-events.ts'
import { reviewerKey, waitingOn } from './review-requests.ts'

/** A reviewer (or team) newly asked to review a pull request whose message exists: pinged once in its thread. */
export interface ReviewPing {
  reviewer: Reviewer
  /** The delivery and the reviewer: the same on every replay, so the ping is posted once. */
  replyKey: string
}

const SHOWN: ReadonlySet<LifecycleState> = new Set(['open', 'draft', 'merged', 'closed'])
const shows = (lifecycle: StoredLifecycle | undefined) => lifecycle !== undefined && SHOWN.has(lifecycle.state)

/**
 * The reviewers each event of a folded batch newly makes the pull request wait on, in arrival order. Pure.
 * Only after the message exists: the announcement's own status line already names (and, mapped, mentions)
 * who it waits on. A request repeated under another delivery id, or one for a reviewer already waited on,
 * adds nobody; a reviewer asked again after reviewing (or after being taken off) is new again.
 */
export function reviewPings(stored: StoredLifecycle | undefined, steps: readonly FoldStep[]): ReviewPing[] {
  const pings: ReviewPing[] = []
  let shown = shows(stored)
  for (const step of steps) {
    if (step.ignored || !step.after) continue
    if (shown && step.before) {
      const before = new Set(waitingOn(step.before.context).map(reviewerKey))
      for (const reviewer of waitingOn(step.after.context)) {
        const key = reviewerKey(reviewer)
        if (!before.has(key)) pings.push({ reviewer, replyKey: `${step.event.deliveryId}:review_requested:${key}` })
      }
    }
    shown ||= shows(step.after)
  }
  return pings
}
