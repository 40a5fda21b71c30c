import { pullRequestKey, splitRepository } from '../../machines/pull-request-event.ts'
import type { LifecycleEvent, SlackReply } from '../../machines/lifecycle-event.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { decodeThreadReply } from '../slack/decode-thread-reply.ts'
import { PrheraldError } from '../errors.ts'
import type { DeliveryStore, IntentStore } from '../store/store.ts'
import type { ReplyCommentStore } from '../store/reply-comment-store.ts'
import { PER_MINUTE, type PersonLimits } from '../talk-back/person-limits.ts'
import type { TalkBackService } from '../talk-back/talk-back-service.ts'

export interface ThreadReplyEventDeps {
  store: Pick<ReplyCommentStore, 'messageAt'> & Pick<DeliveryStore, 'recordDelivery'> & Pick<IntentStore, 'postInFlight'>
  talkBack: Pick<TalkBackService, 'settingsFor'>
  limits: PersonLimits
  /** A note only the person sees, in the reply's thread (chat.postEphemeral through the one Slack API). */
  note: (channel: string, user: string, text: string, threadTs: string) => Promise<void>
  /** The pull request's mailbox; called once the reply is durable. */
  handOff: (event: LifecycleEvent) => void
  logger: Logger
  now: () => number
}

/**
 * A post recorded this recently and not completed may be the message a reply is in: Slack shows it before
 * its answer brings prherald the ts. Older ones are a crashed try's, which the start-up recovery settles.
 */
const POST_IN_FLIGHT_MS = 60_000

export const TOO_MANY_REPLIES = `You sent more than ${PER_MINUTE.replies} replies in a minute, so this one did not go to the pull request. Wait a moment and post it again.`

/**
 * A `message` event that the inbound pipeline admitted (workspace, app, event_id taken): a reply in the
 * thread of a pull request's message, its edit or its deletion, recorded in the intake table like a click
 * and handed to the pull request's mailbox (src/worker/reply-comments.ts makes the comment). Returns once
 * the reply is durable: Slack's 200 means it is stored. Replies in other threads and channels, in
 * repositories whose `thread_replies` is off, and bots' are not stored.
 */
export function createThreadReplyEvent(deps: ThreadReplyEventDeps) {
  const { logger } = deps
  /** `teamId`: the workspace the event was sent for (the envelope's `team_id`, already checked to be the bot's). */
  return async function threadReplyEvent(event: unknown, eventId: string | undefined, teamId?: string): Promise<void> {
    const decoded = decodeThreadReply(event)
    if ('ignored' in decoded) {
      if (decoded.ignored !== 'not_a_reply') logger.debug('ignored slack message', { reason: decoded.ignored })
      return
    }
    const reply = decoded.reply
    const ref = await deps.store.messageAt(reply.channel, reply.threadTs)
    if (!ref) {
      // Another thread, or a channel message: not prherald's. Unless a post in this channel awaits its ts: then
      // this may be a reply to it, and Slack is asked to send it again (its first retry comes at once).
      const since = deps.now() - POST_IN_FLIGHT_MS
      if (await deps.store.postInFlight(reply.channel, since)) {
        throw new PrheraldError('slack_message_pending', 'a reply in a channel where a message is being posted: its ts is not stored yet', {
          fix: 'none needed: Slack sends the event again',
        })
      }
      return
    }
    const facts = { repository: ref.repository, pr: ref.prNumber, channel: reply.channel, slack_user: reply.user, action: reply.action }
    if (deps.talkBack.settingsFor(ref.provider, ref.repository).threadReplies === 'off') {
      logger.info('ignored thread reply', { ...facts, reason: 'thread_replies_off' })
      return
    }
    // New replies count; an edit or deletion of one that went follows it whatever the count.
    if (reply.action === 'post' && !(await deps.limits.take('replies', reply.user))) {
      logger.warn('thread reply refused', { ...facts, reason: 'rate_limited' })
      // Not awaited: Slack's acknowledgement does not wait for a paced call.
      void deps.note(reply.channel, reply.user, TOO_MANY_REPLIES, reply.threadTs).catch((error: unknown) => logger.warn('thread reply refusal not sent', errorFields(error)))
      return
    }
    const item: SlackReply = {
      kind: 'slack_reply', provider: ref.provider,
      // Slack's retry carries the same event_id; without one, the reply and what happened to it name it.
      deliveryId: eventId ? `slack:event:${eventId}` : `slack:reply:${reply.channel}:${reply.replyTs}:${reply.action}`,
      ...splitRepository(ref.repository), number: ref.prNumber,
      action: reply.action, user: reply.user, channel: reply.channel, replyTs: reply.replyTs,
      ...(reply.userTeam !== undefined && teamId !== undefined && reply.userTeam !== teamId ? { external: true as const } : {}),
      ...(reply.text !== undefined ? { text: reply.text, files: reply.files ?? [] } : {}),
    }
    if (!(await deps.store.recordDelivery({ provider: ref.provider, deliveryId: item.deliveryId, prKey: pullRequestKey(item), event: item }))) {
      logger.info('thread reply already recorded', facts)
      return
    }
    deps.handOff(item)
  }
}

export type ThreadReplyEvent = ReturnType<typeof createThreadReplyEvent>
