import { isPrheraldError } from '../errors.ts'
import { errorFields, type LogFields, type Logger } from '../log/logger.ts'
import { postMarker } from './find-marked-message.ts'
import type { SlackClient, SlackMessage } from './slack-client.ts'
import type { MessageRecord, PostIntent, Store } from '../store/store.ts'
import { intentPrKey, type FindPost, type SlackCall } from './find-post.ts'
import { lookupDelayMs } from './post-outcome.ts'
import type { RetryPolicy } from './retry-transient.ts'
import type { ShutdownSleep } from './shutdown-sleep.ts'

export interface PostOnceDeps {
  store: Store
  slack: SlackClient
  logger: Logger
  retry: RetryPolicy
  /** The pause before looking for a post whose answer was lost; ends at shutdown (the intent stays). */
  sleep: ShutdownSleep
  /**
   * How long Slack gets to finish a post whose answer was lost before prherald looks for it: the client
   * timeout, since a request Slack was still working on when prherald gave up may land a little later.
   */
  settleMs: number
  findPost: FindPost
  now?: () => number
}

export interface PostRequest {
  /** The row saved with the post's ts (the state before the deliveries being applied). */
  row: Omit<MessageRecord, 'ts'>
  message: SlackMessage
  /** The delivery whose post this is; it goes into the message's metadata. */
  deliveryId: string
  facts: LogFields
  call: SlackCall
}

/**
 * The message's ts, and whether it is an earlier batch's post: an intent left by a batch that failed between
 * its post and saving the ts, found in the channel. That post shows the earlier batch's render (its last
 * delivery is the intent's marker), so the caller brings it to this request's message.
 */
export interface PostedMessage {
  ts: string
  earlier: boolean
}

/**
 * Posts a pull request's message in one channel at most once, across timeouts, resets and crashes. The
 * intent is committed before the post; the post carries the PR and delivery in its metadata; a post whose
 * outcome is unknown is never retried blindly: after a pause the channel's history is searched for it, its
 * ts adopted if it is there, and only if it is not is it posted again. An intent left by an earlier run
 * (or by a post whose lookup failed) is looked up before anything is posted.
 */
export function createPostOnce(deps: PostOnceDeps) {
  const now = deps.now ?? Date.now
  const findPost = deps.findPost

  return async function postOnce(request: PostRequest): Promise<PostedMessage> {
    const { row, facts, call } = request
    const adopt = async (ts: string, earlier: boolean): Promise<PostedMessage> => {
      await deps.store.completePostIntent({ ...row, ts })
      deps.logger.info('slack message found in the channel history; adopting it instead of posting again', { ...facts, ts, ...(earlier ? { earlier_batch: true } : {}) })
      return { ts, earlier }
    }

    const left = await deps.store.findPostIntent(row, row.channel)
    if (left) {
      const ts = await findPost(left, call, facts)
      // A batch whose last delivery was another one posted it: it shows that batch's state, not this one's.
      if (ts) return adopt(ts, left.marker !== request.deliveryId)
    }
    const intent: PostIntent = { ...row, marker: request.deliveryId, createdAt: now() }
    await deps.store.recordPostIntent(intent)
    const marker = postMarker(intentPrKey(row), intent.marker)

    for (let attempt = 1; ; attempt++) {
      try {
        const ts = await call('chat.postMessage', () => deps.slack.postMessage(row.channel, request.message, marker))
        await deps.store.completePostIntent({ ...row, ts })
        return { ts, earlier: false }
      } catch (error) {
        if (isPrheraldError(error, 'slack_permanent')) {
          await deps.store.dropPostIntent(row, row.channel, intent.marker) // Slack refused it: nothing to look for
          throw error
        }
        // Shutdown and other failures leave the intent: the next start looks for the post.
        if (!isPrheraldError(error, 'slack_outcome_unknown')) throw error
        const delayMs = lookupDelayMs(error, attempt, deps.retry, deps.settleMs)
        deps.logger.warn('slack post outcome unknown; looking for it in the channel before posting again', {
          ...facts, channel: row.channel, attempt, delay_ms: delayMs, ...errorFields(error),
        })
        await deps.sleep.sleep(delayMs)
        const ts = await findPost(intent, call, facts)
        if (ts) return adopt(ts, false)
      }
    }
  }
}

export type PostOnce = ReturnType<typeof createPostOnce>
