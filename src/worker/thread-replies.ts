import type { StoredLifecycle } from '../../machines/decide.ts'
import type { FoldStep } from '../../machines/fold-events.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { reviewPings } from '../../machines/review-pings.ts'
import { threadEvents } from '../../machines/thread-events.ts'
import { isPrheraldError } from '../errors.ts'
import type { LogFields, Logger } from '../log/logger.ts'
import { reviewerName, type People } from '../slack/person-names.ts'
import { renderReviewPing } from '../slack/render-review-ping.ts'
import { renderThreadReply } from '../slack/render-thread-reply.ts'
import type { PullRequestRef } from '../store/store.ts'
import type { Outbox } from '../slack/outbox.ts'
import type { RetryPolicy } from '../slack/retry-transient.ts'
import { pacedCall, type PlacedMessage } from './run-plan.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'

/** One reply to post in every message's thread: its key (one reply per key, ever) and its text. */
export interface PlannedReply {
  replyKey: string
  text: string
}

export interface ThreadRepliesDeps {
  outbox: Outbox
  pacer: SlackPacer
  retry: RetryPolicy
  sleep: ShutdownSleep
  logger: Logger
}

export interface ThreadUpdatesInput {
  /** `slack.thread_updates` for the repository, after its mapping tiers. */
  enabled: boolean
  stored: StoredLifecycle | undefined
  steps: readonly FoldStep[]
  /** The pull request's author as a Slack user ID, when mapped (a change request mentions them). */
  slackUser?: (login: string) => string | undefined
}

/** The replies `slack.thread_updates` asks for in a folded batch: one per event that changed the message. Pure. */
export function plannedThreadUpdates(input: ThreadUpdatesInput): PlannedReply[] {
  if (!input.enabled) return []
  return threadEvents(input.stored, input.steps).map((e) => ({ replyKey: e.replyKey, text: renderThreadReply(e, input.slackUser) }))
}

/** `enabled`: `notify.review_requests: thread`. */
export interface ReviewPingsInput extends Omit<ThreadUpdatesInput, 'slackUser'> {
  /** The lifecycle's context after the batch (it knows Bitbucket account ids by name). */
  context: PullRequestContext
  people: People | undefined
}

/**
 * The pings `notify.review_requests: thread` asks for in a folded batch: one per reviewer newly waited on who
 * maps to a Slack user (or team to a user group), keyed by delivery and reviewer. Pure.
 */
export function plannedReviewPings(input: ReviewPingsInput): PlannedReply[] {
  if (!input.enabled || !input.people) return []
  return reviewPings(input.stored, input.steps).flatMap((ping) => {
    const named = reviewerName(input.context, input.people, ping.reviewer)
    return 'token' in named ? [{ replyKey: ping.replyKey, text: renderReviewPing(named.token) }] : []
  })
}

/**
 * Posts the planned replies in the thread of every message the batch left in Slack (or, for a place without a
 * message, in that channel itself), in order, before the
 * batch's rows and deliveries are committed: a crash before the commit replays the batch, and each reply's
 * record (slack/outbox.ts) keeps it from being posted twice. A reply Slack refuses for good is logged and
 * skipped; shutdown and other failures propagate and leave the deliveries pending.
 */
export function createThreadReplies(deps: ThreadRepliesDeps) {
  // A place without a ts is a channel of its own: the replies go there as notices (outbox.ts, ReplyRequest).
  return async function postThreadReplies(placed: ReadonlyArray<Pick<PlacedMessage, 'channel'> & { ts?: string }>, replies: readonly PlannedReply[], context: { ref: PullRequestRef; facts: LogFields; lost: AbortSignal }): Promise<void> {
    if (replies.length === 0) return
    for (const message of placed) {
      const facts = { ...context.facts, channel: message.channel }
      const call = pacedCall(deps, message.channel, context.lost, facts)
      const posted: string[] = []
      for (const reply of replies) {
        try {
          const outcome = await deps.outbox.reply({ ref: context.ref, channel: message.channel, threadTs: message.ts, replyKey: reply.replyKey, text: reply.text, facts, call })
          if (outcome !== 'already_posted') posted.push(reply.replyKey)
        } catch (error) {
          if (!isPrheraldError(error, 'slack_permanent') && !isPrheraldError(error, 'slack_message_not_found')) throw error
          deps.logger.error('slack rejected the thread reply; dropping it', { ...facts, reply_key: reply.replyKey, slack_error: error.message, fix: error.fix })
        }
      }
      if (posted.length > 0) deps.logger.info('slack thread replies posted', { ...facts, ts: message.ts, replies: posted })
    }
  }
}

export type PostThreadReplies = ReturnType<typeof createThreadReplies>
