import { isPrheraldError } from '../errors.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { Outbox } from '../slack/outbox.ts'
import type { ChannelDigest } from './build-digest.ts'

export interface PostDigestDeps {
  outbox: Pick<Outbox, 'digest'>
  pacer: SlackPacer
  logger: Logger
}

/**
 * Posts one channel's digest through the outbox: the parent, then each reply in its thread, every call
 * through the pacer (a 429 waits there and is tried again: Slack refused it, so nothing was posted). A post
 * whose outcome is unknown is looked for by its marker before it is sent again (src/slack/outbox.ts). True
 * when every message went out; a failure is logged with its fix and ends this channel's digest only.
 */
export async function postDigest(deps: PostDigestDeps, digest: ChannelDigest, facts: { schedule: string; date: string }): Promise<boolean> {
  const { channel } = digest
  try {
    await deps.outbox.digest({
      channel, run: `${facts.schedule}@${facts.date}`, parent: digest.parent, replies: digest.replies, facts,
      call: (method, run) => deps.pacer.call(method, channel, run),
    })
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
