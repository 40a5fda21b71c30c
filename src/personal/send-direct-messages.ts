import { randomUUID } from 'node:crypto'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { PostMarker } from '../slack/find-marked-message.ts'
import { searchWindow } from '../slack/find-post.ts'
import { gatherDirectMessage, LINES_PER_MESSAGE } from '../slack/render-direct-message.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { SlackDirectory } from '../slack/slack-directory.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { DirectMessageRecord } from '../store/personal-store.ts'
import type { Store } from '../store/store.ts'

/** The metadata every direct message carries: its batch, which a lookup recognises. */
export const DIRECT_MESSAGE_EVENT_TYPE = 'prherald_direct_message'
const markerOf = (batch: string): PostMarker => ({ eventType: DIRECT_MESSAGE_EVENT_TYPE, payload: { pr: 'direct_message', delivery_id: batch } })

export interface DirectMessageSenderDeps {
  store: Store
  slack: SlackClient
  directory: SlackDirectory
  pacer: SlackPacer
  sleep: ShutdownSleep
  logger: Logger
  now: () => number
  /** This server's name in the claims: one sender per person at a time, across replicas. */
  owner: string
  /** How long a claim lasts: a sender that dies lets another take its people after this. */
  leaseMs?: number
  /** How long Slack gets to finish a post whose answer was lost before it is looked for. */
  settleMs: number
}

/**
 * Sends the direct messages that are due, one person at a time: claims the person's due rows, gathers them
 * into one message (a morning of held ones: a few lines each, paced like every post), and marks them sent.
 * Exactly once as thread replies are (reply-once.ts): the batch is written before the post and rides in its
 * metadata; a post of unknown outcome, or a batch a crashed sender left, is looked for in the conversation
 * (`conversations.history`) before anything is posted again. Slack refusing it for good drops the batch.
 */
export function createDirectMessageSender(deps: DirectMessageSenderDeps) {
  const leaseMs = deps.leaseMs ?? 60_000
  const channels = new Map<string, string>()
  let warnedScope = false

  const channelOf = async (user: string): Promise<string> => {
    const known = channels.get(user)
    if (known) return known
    const channel = await deps.pacer.call('conversations.open', user, () => deps.directory.openConversation(user))
    channels.set(user, channel)
    return channel
  }

  const lookFor = async (channel: string, batch: string, since: number): Promise<string | undefined> => {
    const found = await deps.slack.findMarkedMessage(channel, markerOf(batch), searchWindow(since), (run) => deps.pacer.call('conversations.history', channel, run))
    if ('ts' in found) return found.ts
    if (!warnedScope) {
      warnedScope = true
      deps.logger.warn('slack token cannot read direct messages; sending again without looking (a message may show twice)', {
        scope: found.missingScope, fix: 'add the im:history bot scope to the Slack app (docs/slack-app.md), reinstall it, and set the new SLACK_BOT_TOKEN',
      })
    }
    return undefined
  }

  /** Posts one batch (its rows already carry it); sent, or left for a lookup when the outcome is unknown. */
  const post = async (user: string, channel: string, batch: string, rows: readonly DirectMessageRecord[]): Promise<void> => {
    const text = gatherDirectMessage(rows.map((r) => r.body))
    try {
      const ts = await deps.pacer.call('chat.postMessage', channel, () =>
        deps.slack.postMessage(channel, { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }, markerOf(batch)))
      await deps.store.finishBatch(user, batch, 'sent', channel, ts)
      deps.logger.info('direct message sent', { slack_user: user, lines: rows.length, ts })
    } catch (error) {
      if (!isPrheraldError(error, 'slack_outcome_unknown')) throw error
      await deps.sleep.sleep(deps.settleMs)
      const ts = await lookFor(channel, batch, deps.now())
      if (!ts) throw error
      await deps.store.finishBatch(user, batch, 'sent', channel, ts)
    }
  }

  const sendTo = async (user: string): Promise<void> => {
    const at = deps.now()
    const rows = await deps.store.claimDirectMessages(user, deps.owner, at, at + leaseMs)
    if (rows.length === 0) return
    let batch: string | undefined
    try {
      const channel = await channelOf(user)
      const earlier = new Map<string, DirectMessageRecord[]>()
      for (const r of rows) if (r.batch) earlier.set(r.batch, [...(earlier.get(r.batch) ?? []), r])
      for (const [id, batchRows] of earlier) {
        batch = id
        const ts = await lookFor(channel, id, batchRows[0]!.batchAt ?? at)
        if (ts) await deps.store.finishBatch(user, id, 'sent', channel, ts)
        else await post(user, channel, id, batchRows)
      }
      const fresh = rows.filter((r) => !r.batch)
      for (let i = 0; i < fresh.length; i += LINES_PER_MESSAGE) {
        const chunk = fresh.slice(i, i + LINES_PER_MESSAGE)
        batch = randomUUID()
        await deps.store.setBatch(user, deps.owner, chunk.map((r) => r.dmKey), batch, deps.now())
        await post(user, channel, batch, chunk)
      }
    } catch (error) {
      if (isPrheraldError(error, 'slack_permanent')) {
        // Refused before a batch was chosen (the conversation cannot be opened): every claimed line is dropped.
        const dropped = batch ?? randomUUID()
        if (!batch) await deps.store.setBatch(user, deps.owner, rows.filter((r) => !r.batch).map((r) => r.dmKey), dropped, deps.now())
        await deps.store.finishBatch(user, dropped, 'dropped', null, null)
        deps.logger.error('slack refused the direct message; dropping it', { slack_user: user, slack_error: error.message, fix: error.fix })
      } else {
        deps.logger.warn('direct message not sent; it is tried again', { slack_user: user, ...errorFields(error) })
      }
      // Whatever is left goes to the next round (a batch of unknown outcome is looked for first).
      await deps.store.releaseDirectMessages(user, deps.owner)
    }
  }

  return async function sendDue(): Promise<void> {
    for (const user of await deps.store.dueRecipients(deps.now())) await sendTo(user)
  }
}

export type SendDueDirectMessages = ReturnType<typeof createDirectMessageSender>
