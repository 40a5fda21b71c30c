import { isPrheraldError } from '../errors.ts'
import { errorFields, type LogFields, type Logger } from '../log/logger.ts'
import { replyMarker } from './find-marked-reply.ts'
import type { SlackClient } from './slack-client.ts'
import type { PullRequestRef, Store } from '../store/store.ts'
import { CLOCK_SKEW_MS, intentPrKey, type SlackCall } from './find-post.ts'
import { lookupDelayMs } from './post-outcome.ts'
import type { RetryPolicy } from './retry-transient.ts'
import type { ShutdownSleep } from './shutdown-sleep.ts'

export interface ReplyOnceDeps {
  store: Store
  slack: SlackClient
  logger: Logger
  retry: RetryPolicy
  /** The pause before looking for a reply whose answer was lost; ends at shutdown (the intent stays). */
  sleep: ShutdownSleep
  /** How long Slack gets to finish a reply whose answer was lost: the client timeout, as for posts. */
  settleMs: number
  now?: () => number
}

export interface ReplyRequest {
  ref: PullRequestRef
  channel: string
  /** The ts of the pull request's message: the thread. */
  threadTs: string
  /** The delivery and what the reply tells (machines/thread-events.ts): one reply per key, ever. */
  replyKey: string
  text: string
  facts: LogFields
  /** Through the pacer (chat.postMessage's channel budget, conversations.replies's), transient failures retried. */
  call: SlackCall
}

export type ReplyOutcome = 'posted' | 'adopted' | 'already_posted'

/**
 * Posts one thread reply at most once, across replays, timeouts and crashes, the way post-once.ts posts a
 * message: a reply already recorded with its ts is not posted again; otherwise the intent is committed
 * first, the reply carries the pull request and its key in its metadata, and a reply whose outcome is
 * unknown (or an intent an earlier run left) is looked for in the thread (`conversations.replies`) before
 * it is posted again. Slack refusing it for good drops the intent and throws (slack_permanent).
 */
export function createReplyOnce(deps: ReplyOnceDeps) {
  const now = deps.now ?? Date.now
  const warned = new Set<string>()

  const findReply = async (request: ReplyRequest, createdAt: number): Promise<string | undefined> => {
    const marker = replyMarker(intentPrKey(request.ref), request.replyKey)
    const oldest = new Date(createdAt - CLOCK_SKEW_MS)
    const found = await request.call('conversations.replies', () => deps.slack.findMarkedReply(request.channel, request.threadTs, marker, oldest))
    if ('ts' in found) return found.ts
    if (!warned.has(found.missingScope)) {
      warned.add(found.missingScope)
      deps.logger.warn('slack token cannot read threads; replying again without looking (the reply may show twice)', {
        ...request.facts, channel: request.channel, scope: found.missingScope,
        fix: `add the ${found.missingScope} bot scope to the Slack app (docs/slack-app.md), reinstall it, and set the new SLACK_BOT_TOKEN`,
      })
    }
    return undefined
  }

  return async function replyOnce(request: ReplyRequest): Promise<ReplyOutcome> {
    const { ref, channel, replyKey, facts } = request
    const adopt = async (ts: string): Promise<ReplyOutcome> => {
      await deps.store.completeThreadReply(ref, channel, replyKey, ts)
      deps.logger.info('slack thread reply found in the thread; adopting it instead of replying again', { ...facts, channel, reply_key: replyKey, ts })
      return 'adopted'
    }

    const recorded = await deps.store.findThreadReply(ref, channel, replyKey)
    if (recorded?.ts) return 'already_posted'
    if (recorded) {
      const ts = await findReply(request, recorded.createdAt)
      if (ts) return adopt(ts)
    }
    const createdAt = now()
    await deps.store.recordThreadReplyIntent({ ...ref, channel, replyKey, createdAt })
    const marker = replyMarker(intentPrKey(ref), replyKey)

    for (let attempt = 1; ; attempt++) {
      try {
        const ts = await request.call('chat.postMessage', () => deps.slack.postReply(channel, request.threadTs, request.text, marker))
        await deps.store.completeThreadReply(ref, channel, replyKey, ts)
        return 'posted'
      } catch (error) {
        if (isPrheraldError(error, 'slack_permanent')) {
          await deps.store.dropThreadReplyIntent(ref, channel, replyKey) // Slack refused it: nothing to look for
          throw error
        }
        // Shutdown and other failures leave the intent: the replay looks for the reply first.
        if (!isPrheraldError(error, 'slack_outcome_unknown')) throw error
        const delayMs = lookupDelayMs(error, attempt, deps.retry, deps.settleMs)
        deps.logger.warn('slack thread reply outcome unknown; looking for it in the thread before replying again', {
          ...facts, channel, reply_key: replyKey, attempt, delay_ms: delayMs, ...errorFields(error),
        })
        await deps.sleep.sleep(delayMs)
        const ts = await findReply(request, createdAt)
        if (ts) return adopt(ts)
      }
    }
  }
}

export type ReplyOnce = ReturnType<typeof createReplyOnce>
