import type { EventKind, PullRequestEvent } from './pull-request-event.ts'
import type { ReactionKey } from './reaction-key.ts'

/** What the message shows besides the pull request itself. Pure helpers; the machine assigns their results. */
export interface ReviewFacts {
  approvedBy: string[]
  changesRequestedBy: string[]
  commentCount: number
  botReviewers: string[]
}

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
    default:
      return { ...facts, approvedBy: without(facts.approvedBy, login), changesRequestedBy: without(facts.changesRequestedBy, login) }
  }
}

/** The reaction a review event adds, and the one a removal event may take away. */
export const REVIEW_REACTION: Partial<Record<EventKind, ReactionKey>> = {
  approved: 'approved',
  changes_requested: 'changes_requested',
  commented: 'commented',
  approval_removed: 'approved',
  changes_request_removed: 'changes_requested',
}
