import type { PullRequestEvent, PullRequestId } from './pull-request-event.ts'

/**
 * A click on a message's "Start review" button: someone in Slack claims (or, clicking again, gives back) the
 * review of a pull request. It goes through the pull request's mailbox like a delivery, so it never races one.
 */
export interface ReviewClick extends PullRequestId {
  kind: 'review_click'
  /** `slack:<trigger_id>`: unique per click, and never a git host's delivery id (theirs are UUIDs). */
  deliveryId: string
  /** The Slack user who clicked (`U…` or `W…`). */
  user: string
  /** The channel and ts of the message the button sat on: a click counts only on that pull request's own message. */
  channel?: string
  messageTs?: string
}

/**
 * A person's reply in the thread of a pull request's message, or its edit or deletion (docs/talk-back.md):
 * it becomes a comment on the pull request. Recorded like a click and carried by the pull request's mailbox,
 * so a reply, its edit and its deletion keep their order; the batch hands it to the reply handler
 * (src/worker/reply-comments.ts), never to the lifecycle machine.
 */
export interface SlackReply extends PullRequestId {
  kind: 'slack_reply'
  /** `slack:event:<event_id>`: Slack's retry of the event is the same delivery. */
  deliveryId: string
  action: 'post' | 'edit' | 'delete'
  /** The Slack user who wrote the reply. */
  user: string
  channel: string
  /** The reply's own ts, which names it in the store (its comment). */
  replyTs: string
  /** The reply's text (Slack markup) and its files; absent for a deletion. */
  text?: string
  files?: Array<{ name: string; url: string }>
  /**
   * From outside the workspace: the event's `user_team` is not the workspace's (Slack Connect). Guests are
   * told apart at the batch, from users.info. `slack.talk_back.external` says what their replies may do.
   */
  external?: true
}

/** What a pull request's mailbox carries: a git host's delivery, a click in Slack, or a thread reply. */
export type LifecycleEvent = PullRequestEvent | ReviewClick | SlackReply

/** What the lifecycle machine folds: everything a mailbox carries but thread replies. */
export type MachineEvent = PullRequestEvent | ReviewClick

export const isReviewClick = (event: LifecycleEvent | MachineEvent): event is ReviewClick => event.kind === 'review_click'

export const isSlackReply = (event: LifecycleEvent): event is SlackReply => event.kind === 'slack_reply'
