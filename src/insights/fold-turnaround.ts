import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { PullRequestRef } from '../store/store.ts'
import type { ReviewMark, TurnaroundRecord } from '../store/turnaround-store.ts'

/** A pull request's reviews kept in its row: enough for any team's week, and the row stays small. */
const MAX_REVIEWS = 100

/**
 * When the event happened, as the host says: the pull request's `updated_at` on the delivery (the moment of the
 * review, the merge, the marking ready), else `receivedAt` for a delivery without a readable one.
 */
function eventTime(event: PullRequestEvent, receivedAt: number): number {
  const at = Date.parse(event.pr.updatedAt)
  return Number.isFinite(at) ? at : receivedAt
}

/** The earlier of a stored moment and a new one: a replayed or late delivery never moves a moment later. */
const earliest = (stored: number | null, seen: number): number => (stored === null ? seen : Math.min(stored, seen))

/** The author acting on their own pull request: their comments and self-approvals are no review. */
function byAuthor(event: PullRequestEvent): boolean {
  const { actor, pr } = event
  if (actor.accountId && pr.authorAccountId) return actor.accountId === pr.authorAccountId
  return pr.author !== '' && actor.login.toLowerCase() === pr.author.toLowerCase()
}

/** A review: an approval, changes requested, or a submitted review (GitHub's `commented` state); never a bare comment. */
const isReview = (event: PullRequestEvent): boolean =>
  event.kind === 'approved' || event.kind === 'changes_requested' || (event.kind === 'commented' && event.submittedReview === true)

/**
 * Folds a batch's deliveries into the pull request's turnaround row (migrations/0045): the first time of each
 * moment, each review by someone other than the author, the teams asked. Pure; replaying a delivery changes
 * nothing (moments keep the earliest time, a review is kept once per person and time). `entry` is the mapping
 * entry that routes the pull request now.
 */
export function foldTurnaround(
  ref: PullRequestRef, stored: TurnaroundRecord | undefined, events: readonly PullRequestEvent[], entry: string | null, receivedAt: number,
): TurnaroundRecord {
  const row: TurnaroundRecord = stored
    ? { ...stored, reviews: [...stored.reviews], teams: [...stored.teams], entry: entry ?? stored.entry }
    : {
      ...ref, entry, author: '', openedAt: null, readyAt: null, firstReviewAt: null, firstApprovalAt: null, mergedAt: null, closedAt: null,
      mergedBy: null, reviews: [], teams: [],
    }
  for (const event of events) {
    const at = eventTime(event, receivedAt)
    if (event.pr.author) row.author = event.pr.author
    const created = Date.parse(event.pr.createdAt)
    if (Number.isFinite(created)) row.openedAt = earliest(row.openedAt, created)
    for (const r of event.pr.requestedReviewers ?? []) if (r.type === 'team' && !row.teams.includes(r.slug)) row.teams.push(r.slug)
    if (event.reviewer?.type === 'team' && !row.teams.includes(event.reviewer.slug)) row.teams.push(event.reviewer.slug)
    switch (event.kind) {
      case 'opened':
        if (!event.pr.draft && Number.isFinite(created)) row.readyAt = earliest(row.readyAt, created)
        break
      case 'ready_for_review':
        row.readyAt = earliest(row.readyAt, at)
        break
      case 'reopened':
        row.closedAt = null
        break
      case 'merged':
        row.mergedAt = earliest(row.mergedAt, at)
        row.mergedBy ??= event.actor.login
        break
      case 'closed':
        row.closedAt = earliest(row.closedAt, at)
        break
      default:
        break
    }
    if (!isReview(event) || event.actor.isBot || byAuthor(event)) continue
    row.firstReviewAt = earliest(row.firstReviewAt, at)
    if (event.kind === 'approved') row.firstApprovalAt = earliest(row.firstApprovalAt, at)
    addReview(row.reviews, { login: event.actor.login, at })
  }
  return row
}

function addReview(reviews: ReviewMark[], review: ReviewMark): void {
  if (reviews.some((r) => r.login === review.login && r.at === review.at)) return
  reviews.push(review)
  if (reviews.length > MAX_REVIEWS) reviews.shift()
}
