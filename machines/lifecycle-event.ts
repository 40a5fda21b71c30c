import type { Provider, PullRequestEvent } from './pull-request-event.ts'

/**
 * A click on a message's "Start review" button: someone in Slack claims (or, clicking again, gives back) the
 * review of a pull request. It goes through the pull request's mailbox like a delivery, so it never races one.
 */
export interface ReviewClick {
  kind: 'review_click'
  provider: Provider
  /** `slack:<trigger_id>`: unique per click, and never a git host's delivery id (theirs are UUIDs). */
  deliveryId: string
  owner: string
  repo: string
  number: number
  /** The Slack user who clicked (`U…` or `W…`). */
  user: string
  /** The channel and ts of the message the button sat on: a click counts only on that pull request's own message. */
  channel?: string
  messageTs?: string
}

/** What a pull request's mailbox carries: a git host's delivery or a click in Slack. */
export type LifecycleEvent = PullRequestEvent | ReviewClick

export const isReviewClick = (event: LifecycleEvent): event is ReviewClick => event.kind === 'review_click'
