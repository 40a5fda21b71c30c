import type { EventKind, PullRequestEvent } from '../../machines/pull-request-event.ts'

/**
 * What `reviews.ignore_bot_reviews` mutes: a bot's review verdict or comment, and a verdict a bot takes back
 * itself (Bitbucket). A dismissal is not muted: on GitHub its actor is the reviewer whose review a person
 * dismissed, and that person's act is news.
 */
const BOT_REVIEW_KINDS: ReadonlySet<EventKind> = new Set(['approved', 'changes_requested', 'commented', 'approval_removed', 'changes_request_removed', 'comment_changed'])

/**
 * True when the event is a bot's review activity and muting is on. The hosts do not tell an AI reviewer from a
 * CI bot (both are GitHub Apps or Bitbucket app users), so this is all bots or none.
 */
export function isMutedBotReview(event: Pick<PullRequestEvent, 'kind' | 'actor'>, ignoreBotReviews: boolean): boolean {
  return ignoreBotReviews && event.actor.isBot && BOT_REVIEW_KINDS.has(event.kind)
}
