import { isPrheraldError } from '../errors.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { ChannelDigest } from './build-digest.ts'

export interface PostDigestDeps {
  slack: SlackClient
  pacer: SlackPacer
  logger: Logger
}

/**
 * Posts one channel's digest: the parent, then each reply in its thread, every call through the pacer (a
 * 429 waits there and is tried again: Slack refused it, so nothing was posted). Nothing else is retried: a
 * post whose outcome is unknown could land twice. True when every message went out; a failure is logged
 * with its fix and ends this channel's digest only.
 */
export async function postDigest(deps: PostDigestDeps, digest: ChannelDigest, facts: { schedule: string; date: string }): Promise<boolean> {
  const { channel } = digest
  const post = (message: ChannelDigest['parent'], threadTs?: string) =>
    deps.pacer.call('chat.postMessage', channel, () => deps.slack.postMessage(channel, message, undefined, threadTs))
  try {
    const parentTs = await post(digest.parent)
    for (const reply of digest.replies) await post(reply, parentTs)
  } catch (error) {
    if (error instanceof ShutdownInterrupt) throw error
    deps.logger.error('digest failed in a channel', {
      ...facts, channel, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined,
    })
    return false
  }
  deps.logger.info('digest posted', { ...facts, channel, pull_requests: digest.count, replies: digest.replies.length })
  return true
}
