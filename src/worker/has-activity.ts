import type { EventKind } from '../../machines/pull-request-event.ts'

/**
 * What counts as a pull request's activity for the digest, beside its announcement: a review and a comment.
 * A push, an edit or a label does not: none of them tells that someone looked at it. Bots' reviews muted by
 * reviews.ignore_bot_reviews never get here (the intake drops them), and a "Start review" click is a promise
 * of a review, not one: the pull request stays stuck until the review arrives.
 */
const ACTIVITY_KINDS: ReadonlySet<EventKind | 'review_click'> = new Set(['approved', 'changes_requested', 'commented'])

export function hasActivity(events: ReadonlyArray<{ kind: EventKind | 'review_click' }>): boolean {
  return events.some((e) => ACTIVITY_KINDS.has(e.kind))
}
