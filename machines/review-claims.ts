import type { PullRequestEvent } from './pull-request-event.ts'

/**
 * Who in Slack said "I am reviewing this" with the message's "Start review" button. Pure helpers; the machine
 * assigns their results. Absent in lifecycles stored before the button existed, which read as no one.
 */
export interface ReviewClaims {
  /** Slack user IDs, in the order they clicked. */
  reviewing?: string[]
}

/** A click: claims the review, or gives it back when this person already holds a claim. */
export function toggleClaim(claims: ReviewClaims, user: string): ReviewClaims {
  const reviewing = claims.reviewing ?? []
  return { reviewing: reviewing.includes(user) ? reviewing.filter((u) => u !== user) : [...reviewing, user] }
}

/**
 * A review submitted on the git host (an approval or a change request) ends a claim: the reviewer's own, when
 * `users:` maps them to a Slack user (the intake puts that on the event); otherwise prherald cannot tell
 * whose review it was, and every claim ends. A claim held by someone else stays when the mapping is known.
 */
export function clearClaims(claims: ReviewClaims, event: Pick<PullRequestEvent, 'actor'>): ReviewClaims {
  const reviewing = claims.reviewing ?? []
  if (reviewing.length === 0) return claims
  const slackUser = event.actor.slackUser
  return { reviewing: slackUser === undefined ? [] : reviewing.filter((u) => u !== slackUser) }
}
