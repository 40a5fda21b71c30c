import type { HostComment, PullRequestEvent } from '../../machines/pull-request-event.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import { mappedId } from '../config/people-map.ts'
import type { MirrorSetting } from '../config/talk-back-settings.ts'
import { isPrheraldError } from '../errors.ts'
import type { LogFields, Logger } from '../log/logger.ts'
import type { Outbox } from '../slack/outbox.ts'
import { renderFoldedComments, renderMirroredComment } from '../slack/render-mirrored-comment.ts'
import type { RetryPolicy } from '../slack/retry-transient.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { IntentStore, PullRequestRef } from '../store/store.ts'
import { isPrheraldComment } from '../talk-back/own-comment.ts'
import { codeReplyValue } from '../slack/code-reply-value.ts'
import { pacedCall } from './run-plan.ts'

/**
 * A batch with more new comments than this folds them into one reply (a bot's or an import's flood): the count,
 * who wrote them and the pull request's link, never one post each.
 */
export const MIRROR_FOLD_AT = 5

/** What the mirror does in the threads for a batch's comments, in arrival order. */
export type MirrorStep =
  | { type: 'post'; replyKey: string; comment: HostComment; author: string }
  | { type: 'fold'; replyKey: string; count: number; authors: string[] }
  | { type: 'update'; replyKey: string; comment: HostComment; author: string }
  | { type: 'delete'; replyKey: string }

/**
 * One reply per comment, ever: its key is the comment's own id (a code comment's with its thread, which its
 * Reply button and a reply that links to it go back to), so a redelivery under another delivery id finds it.
 */
export function mirrorKey(comment: HostComment): string {
  return comment.place === 'code' && comment.thread !== undefined ? `mirror:code:${comment.thread}:${comment.id}` : `mirror:${comment.place}:${comment.id}`
}

/** The code thread a mirrored reply's key names (mirrorKey), or undefined for any other reply. */
export function codeThreadOf(replyKey: string): string | undefined {
  const match = /^mirror:code:(.+):[^:]+$/.exec(replyKey)
  return match?.[1]
}

const shown = (setting: MirrorSetting, comment: HostComment) => setting === 'all' || (setting === 'comments' && comment.place === 'conversation')

/**
 * The mirror's steps for a batch's events (`slack.talk_back.mirror`). Pure. Comments prherald made itself from
 * Slack carry its marker and come back as nothing (no echo); an empty body (a review with none) is nothing too.
 * More than MIRROR_FOLD_AT new comments fold into one reply keyed by the batch's first comment delivery.
 */
export function plannedMirror(events: readonly PullRequestEvent[], setting: MirrorSetting): MirrorStep[] {
  if (setting === 'off') return []
  const steps: MirrorStep[] = []
  const posts: Array<Extract<MirrorStep, { type: 'post' }>> = []
  let firstDelivery: string | undefined
  for (const event of events) {
    const comment = event.comment
    if (!comment || !shown(setting, comment) || isPrheraldComment(comment.body)) continue
    const replyKey = mirrorKey(comment)
    if (comment.action === 'deleted') steps.push({ type: 'delete', replyKey })
    else if (comment.action === 'edited') steps.push({ type: 'update', replyKey, comment, author: event.actor.login })
    else if (comment.body.trim() !== '') {
      firstDelivery ??= event.deliveryId
      const post = { type: 'post' as const, replyKey, comment, author: event.actor.login }
      posts.push(post)
      steps.push(post)
    }
  }
  if (posts.length <= MIRROR_FOLD_AT) return steps
  const authors = [...new Set(posts.map((p) => p.author))]
  const rest = steps.filter((s) => s.type !== 'post')
  return [{ type: 'fold', replyKey: `mirror:batch:${firstDelivery}`, count: posts.length, authors }, ...rest]
}

export interface MirrorCommentsDeps {
  outbox: Outbox
  store: Pick<IntentStore, 'findThreadReply'>
  slack: SlackClient
  pacer: SlackPacer
  retry: RetryPolicy
  sleep: ShutdownSleep
  logger: Logger
  /** Each host's words ("on GitHub") and `users:` (mentions in the comments). */
  hosts: HostSet
}

export interface MirrorContext {
  ref: PullRequestRef
  facts: LogFields
  lost: AbortSignal
  setting: MirrorSetting
  /** The pull request's page, the folded reply's link. */
  url: string
  /** Whether a mirrored code comment offers the Reply button (replies can go back as the person). */
  replies: boolean
}

/**
 * Runs the mirror's steps in the thread of every message the pull request has: a new comment through the
 * outbox (exactly once per key across redeliveries, replays and crashes), an edit as chat.update of the reply
 * and a deletion as chat.delete, both through the pacer. A comment whose reply was folded or never made has
 * nothing to edit. Slack refusing one for good is logged and skipped; other failures fail the batch (retried).
 */
export function createMirrorComments(deps: MirrorCommentsDeps) {
  return async function mirrorComments(events: readonly PullRequestEvent[], threads: ReadonlyArray<{ channel: string; ts: string }>, context: MirrorContext): Promise<void> {
    const steps = plannedMirror(events, context.setting)
    if (steps.length === 0 || threads.length === 0) return
    const provider = context.ref.provider
    const own = deps.hosts.get(provider)
    const hostName = own?.host.words.name ?? provider
    const users = own?.users ?? {}
    const mention = (login: string) => mappedId(users, login)
    const prKey = pullRequestKey(context.ref)
    const render = (comment: HostComment, author: string) => renderMirroredComment({
      comment, author, hostName,
      replyValue: context.replies && comment.place === 'code' && comment.thread !== undefined ? codeReplyValue(prKey, comment.thread) : undefined,
    }, { mention })
    for (const thread of threads) {
      const facts = { ...context.facts, channel: thread.channel }
      const call = pacedCall(deps, thread.channel, context.lost, facts)
      for (const step of steps) {
        try {
          if (step.type === 'post' || step.type === 'fold') {
            const message = step.type === 'post' ? render(step.comment, step.author) : renderFoldedComments(step.count, step.authors, hostName, context.url)
            await deps.outbox.reply({ ref: context.ref, channel: thread.channel, threadTs: thread.ts, replyKey: step.replyKey, text: message.text, message, facts, call })
            continue
          }
          const reply = await deps.store.findThreadReply(context.ref, thread.channel, step.replyKey)
          if (!reply?.ts) {
            deps.logger.info('mirrored comment changed at the host; no reply of it to change', { ...facts, reply_key: step.replyKey, action: step.type })
            continue
          }
          const ts = reply.ts
          if (step.type === 'update') await call('chat.update', () => deps.slack.updateMessage(thread.channel, ts, render(step.comment, step.author)))
          else await call('chat.delete', () => deps.slack.deleteMessage(thread.channel, ts))
        } catch (error) {
          if (!isPrheraldError(error, 'slack_permanent') && !isPrheraldError(error, 'slack_message_not_found')) throw error
          deps.logger.error('slack rejected the mirrored comment; dropping it', { ...facts, reply_key: step.replyKey, slack_error: error.message, fix: error.fix })
        }
      }
    }
  }
}

export type MirrorComments = ReturnType<typeof createMirrorComments>
