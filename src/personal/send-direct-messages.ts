import { randomUUID } from 'node:crypto'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { LeftIntent, Outbox } from '../slack/outbox.ts'
import { gatherDirectMessage, LINES_PER_MESSAGE } from '../slack/render-direct-message.ts'
import type { SlackDirectory } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { DirectMessageRecord, DirectMessageStore, IntentStore } from '../store/store.ts'

export interface DirectMessageSenderDeps {
  store: DirectMessageStore & IntentStore
  directory: SlackDirectory
  pacer: SlackPacer
  /** Makes each gathered message exactly once (slack/outbox.ts). */
  outbox: Outbox
  logger: Logger
  now: () => number
  /** This server's name in the claims: one sender per person at a time, across replicas. */
  owner: string
  /** How long a claim lasts: a sender that dies lets another take its people after this. */
  leaseMs?: number
  /** Turns the intents batches committed into people's rows first (queue-direct-messages.ts). */
  resolve: (now: number) => Promise<void>
}

/**
 * Sends the direct messages that are due, one person at a time: claims the person's due rows, gathers them
 * into one message (a morning of held ones: a few lines each, paced like every post), and marks them sent.
 * Each gathered message goes through the outbox: its batch is written before the post and rides in its
 * metadata; one of unknown outcome, or a batch a crashed sender left, is looked for in the conversation
 * before anything is posted again. Slack refusing it for good drops the batch.
 */
export function createDirectMessageSender(deps: DirectMessageSenderDeps) {
  const leaseMs = deps.leaseMs ?? 60_000
  const channels = new Map<string, string>()

  const channelOf = async (user: string): Promise<string> => {
    const known = channels.get(user)
    if (known) return known
    const channel = await deps.pacer.call('conversations.open', user, () => deps.directory.openConversation(user))
    channels.set(user, channel)
    return channel
  }
  const callIn = (channel: string) => <T>(method: Parameters<SlackPacer['call']>[0], run: () => Promise<T>) => deps.pacer.call(method, channel, run)

  /** Posts one batch of the claimed rows (a left one is looked for first). */
  const post = async (user: string, channel: string, batch: string, rows: readonly DirectMessageRecord[], claimedUntil: number): Promise<void> => {
    const text = gatherDirectMessage(rows.map((r) => r.body))
    const ts = await deps.outbox.directMessage({ user, channel, batch, rows, text, owner: deps.owner, claimHeld: () => deps.now() < claimedUntil, call: callIn(channel) })
    deps.logger.info('direct message sent', { slack_user: user, lines: rows.length, ts })
  }

  const sendTo = async (user: string): Promise<void> => {
    const at = deps.now()
    const claimedUntil = at + leaseMs
    const rows = await deps.store.claimDirectMessages(user, deps.owner, at, claimedUntil)
    if (rows.length === 0) return
    let batch: string | undefined
    try {
      const channel = await channelOf(user)
      const earlier = new Map<string, DirectMessageRecord[]>()
      for (const r of rows) if (r.batch) earlier.set(r.batch, [...(earlier.get(r.batch) ?? []), r])
      for (const [id, batchRows] of earlier) await post(user, channel, (batch = id), batchRows, claimedUntil)
      const fresh = rows.filter((r) => !r.batch)
      for (let i = 0; i < fresh.length; i += LINES_PER_MESSAGE) await post(user, channel, (batch = randomUUID()), fresh.slice(i, i + LINES_PER_MESSAGE), claimedUntil)
    } catch (error) {
      if (isPrheraldError(error, 'slack_permanent')) {
        // Refused before a batch was chosen (the conversation cannot be opened): every claimed line is dropped.
        // A batch Slack refused was dropped by the outbox.
        if (!batch) {
          const dropped = randomUUID()
          await deps.store.setBatch(user, deps.owner, rows.filter((r) => !r.batch).map((r) => r.dmKey), dropped, deps.now())
          await deps.store.finishBatch(user, dropped, 'dropped', null, null)
        }
        deps.logger.error('slack refused the direct message; dropping it', { slack_user: user, slack_error: error.message, fix: error.fix })
      } else {
        deps.logger.warn('direct message not sent; it is tried again', { slack_user: user, ...errorFields(error) })
      }
      // Whatever is left goes to the next round (a batch of unknown outcome is looked for first).
      await deps.store.releaseDirectMessages(user, deps.owner)
    }
  }

  /**
   * The batches a sender left with an unknown outcome, for the start-up recovery (worker/recover-intents.ts):
   * each held under a claim on its person, looked for in the conversation, and marked sent when found. One not
   * found stays: the person's next claim sends it (looking once more first).
   */
  const leftIntents = async (): Promise<LeftIntent[]> => {
    const left = new Map<string, { user: string; batch: string; since: number }>()
    for (const r of await deps.store.directMessageBatchesLeft()) {
      if (r.batch && !left.has(`${r.recipient} ${r.batch}`)) left.set(`${r.recipient} ${r.batch}`, { user: r.recipient, batch: r.batch, since: r.batchAt ?? r.createdAt })
    }
    return [...left.values()].map(({ user, batch, since }) => ({
      kind: 'direct_message', facts: { slack_user: user },
      async hold() {
        const at = deps.now()
        const rows = await deps.store.claimDirectMessages(user, deps.owner, at, at + leaseMs)
        const release = () => deps.store.releaseDirectMessages(user, deps.owner)
        if (rows.some((r) => r.batch === batch)) return release
        await release()
        return undefined
      },
      find: async () => deps.outbox.findDirectMessage(await channelOf(user), batch, since, callIn(await channelOf(user))),
      complete: async (ts) => deps.store.finishBatch(user, batch, 'sent', await channelOf(user), ts),
      drop: async () => {},
    }))
  }

  return {
    leftIntents,
    async sendDue(): Promise<void> {
      await deps.resolve(deps.now())
      for (const user of await deps.store.dueRecipients(deps.now())) await sendTo(user)
    },
  }
}
