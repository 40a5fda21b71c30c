import type { PullRequestEvent } from './pull-request-event.ts'

/** What the message shows besides the pull request itself. Pure helpers; the machine assigns their results. */
export interface ReviewFacts {
  approvedBy: string[]
  changesRequestedBy: string[]
  commentCount: number
  botReviewers: string[]
  /**
   * Ids of reviews dismissed (GitHub): a submission of one of them is a replay of a superseded fact and
   * changes nothing. Ids, not times: a dismissal carries no time of its own. Absent in older snapshots.
   */
  dismissedReviews?: string[]
}

/** The event submits a review that was dismissed before: it must not count again. */
export const isDismissedReview = (facts: ReviewFacts, event: PullRequestEvent): boolean =>
  event.reviewId !== undefined && (facts.dismissedReviews ?? []).includes(event.reviewId)

const without = (list: string[], login: string) => list.filter((l) => l !== login)
const withOne = (list: string[], login: string) => (list.includes(login) ? list : [...list, login])

/** A submitted review or comment: a reviewer's latest verdict replaces their earlier one. */
export function recordReview(facts: ReviewFacts, event: PullRequestEvent): ReviewFacts {
  const { login, isBot } = event.actor
  const botReviewers = isBot ? withOne(facts.botReviewers, login) : facts.botReviewers
  switch (event.kind) {
    case 'approved':
      return { ...facts, botReviewers, approvedBy: withOne(facts.approvedBy, login), changesRequestedBy: without(facts.changesRequestedBy, login) }
    case 'changes_requested':
      return { ...facts, botReviewers, changesRequestedBy: withOne(facts.changesRequestedBy, login), approvedBy: without(facts.approvedBy, login) }
    default:
      return { ...facts, botReviewers, commentCount: facts.commentCount + 1 }
  }
}

/** An approval or change request taken back (Bitbucket) or a review dismissed (GitHub). */
export function forgetReview(facts: ReviewFacts, event: PullRequestEvent): ReviewFacts {
  const { login } = event.actor
  switch (event.kind) {
    case 'approval_removed':
      return { ...facts, approvedBy: without(facts.approvedBy, login) }
    case 'changes_request_removed':
      return { ...facts, changesRequestedBy: without(facts.changesRequestedBy, login) }
    default: {
      const dismissed = event.reviewId === undefined ? facts.dismissedReviews : withOne(facts.dismissedReviews ?? [], event.reviewId)
      return {
        ...facts, approvedBy: without(facts.approvedBy, login), changesRequestedBy: without(facts.changesRequestedBy, login),
        ...(dismissed ? { dismissedReviews: dismissed } : {}),
      }
    }
  }
}
