import { decide, type StoredLifecycle } from '../../machines/decide.ts'
import { initialContext, type Intent } from '../../machines/pull-request.machine.ts'
import type { ReactionKey } from '../config/settings.ts'
import type { Mappings } from '../config/schema.ts'
import type { PullRequestEvent } from '../decode/pull-request-event.ts'
import { isPrheraldError } from '../errors.ts'
import { ignoredFacts, logIgnored } from '../intake/log-ignored.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { resolveRoute } from '../routing/resolve-route.ts'
import { renderMessage } from '../slack/render-message.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { StoredMessage, Store } from '../store/store.ts'
import type { CallLimit } from './call-limit.ts'
import { repositoryChannel, type ChooseTargets } from './message-targets.ts'
import { retryTransient, type RetryPolicy } from './retry-transient.ts'

export interface LifecycleDeps {
  store: Store
  slack: SlackClient
  logger: Logger
  mappings: Mappings
  reactions: Record<ReactionKey, string>
  retry: RetryPolicy
  /** Aborted at shutdown: retry loops stop and the delivery stays pending. */
  signal: AbortSignal
  chooseTargets?: ChooseTargets
  /** Shared by every mailbox: at most so many outbound calls at once. */
  limit: CallLimit
}

type Message = Pick<StoredMessage, 'channel' | 'ts' | 'mentions'>

/**
 * The mailbox worker: runs one delivery through the lifecycle machine and carries out its intents
 * against Slack, persisting the message ts right after each post. Runs inside the PR's mailbox, so it
 * never races another delivery of the same pull request.
 */
export function createLifecycle(deps: LifecycleDeps) {
  const chooseTargets = deps.chooseTargets ?? repositoryChannel

  return async function applyEvent(event: PullRequestEvent): Promise<void> {
    const ref = { provider: event.provider, repository: `${event.owner}/${event.repo}`, prNumber: event.number }
    const facts = { repository: ref.repository, pr: event.number, delivery_id: event.deliveryId }
    const allRows = await deps.store.findMessages(ref)
    // A replay after a crash skips the channels whose row already reflects this delivery; the others (say, the
    // second channel of a path-routed PR) still need it. Every row carries the PR's one lifecycle, because
    // each delivery saves every row, so any row that does not reflect this delivery holds the state before it.
    const rows = allRows.filter((r) => r.lastDeliveryId !== event.deliveryId)
    if (allRows.length > 0 && rows.length === 0) {
      await deps.store.markApplied(event.provider, event.deliveryId)
      return
    }
    const stored = rows[0] ? (JSON.parse(rows[0].lifecycle) as StoredLifecycle) : undefined
    const { next, intents } = decide(stored, event)
    const ignore = intents.find((i): i is Extract<Intent, { type: 'ignore' }> => i.type === 'ignore')
    if (ignore) {
      logIgnored(deps.logger, ignore.reason, ignoredFacts(event))
      await deps.store.markApplied(event.provider, event.deliveryId)
      return
    }
    const route = resolveRoute(deps.mappings, event.owner, event.repo)
    if (!route) {
      logIgnored(deps.logger, 'no_mapping', ignoredFacts(event))
      await deps.store.markApplied(event.provider, event.deliveryId)
      return
    }

    const save = (m: Message) => deps.store.saveMessage({
      ...ref, channel: m.channel, ts: m.ts, mentions: m.mentions, state: next.state,
      lifecycle: JSON.stringify(next), lastDeliveryId: event.deliveryId,
    })
    const slackCall = <T>(what: string, channel: string, run: () => Promise<T>) =>
      retryTransient(() => deps.limit(run), {
        policy: deps.retry,
        signal: deps.signal,
        onRetry: (attempt, delayMs, error) =>
          deps.logger.warn('slack call failed, retrying', { ...facts, call: what, channel, attempt, delay_ms: delayMs, ...errorFields(error) }),
      })
    const render = (m: Message) => renderMessage({ lifecycle: next, mentions: m.mentions })
    // Many deliveries change nothing a reader sees (a repeated `opened`, `ready_for_review` on a PR that is
    // already ready, an `edited` description), and chat.update is rate-limited per channel, so an update
    // whose text and blocks would stay the same is not sent. Reactions are decided separately and still apply.
    const unchanged = (m: Message) => {
      const row = rows.find((r) => r.channel === m.channel)
      if (!row) return false
      const shown = renderMessage({ lifecycle: JSON.parse(row.lifecycle) as StoredLifecycle, mentions: row.mentions })
      return JSON.stringify(shown) === JSON.stringify(render(m))
    }
    // The row as it was before this delivery (or a fresh, unannounced one): what a post saves beside its ts.
    const before = (channel: string) => {
      const row = rows.find((r) => r.channel === channel)
      if (row) return { state: row.state, lifecycle: row.lifecycle, lastDeliveryId: row.lastDeliveryId }
      const unannounced: StoredLifecycle = stored ?? { state: 'unannounced', context: initialContext(event) }
      return { state: unannounced.state, lifecycle: JSON.stringify(unannounced), lastDeliveryId: null }
    }
    const post = async (channel: string, mentions: string[]): Promise<Message> => {
      const ts = await slackCall('chat.postMessage', channel, () => deps.slack.postMessage(channel, render({ channel, ts: '', mentions })))
      // The ts is stored at once, so that nothing posts a second message; the lifecycle and last delivery
      // stay as they were, so that a replay after a crash here runs this delivery again (updating the
      // message it finds instead of posting) and adds the reactions this run did not get to.
      await deps.store.saveMessage({ ...ref, channel, ts, mentions, ...before(channel) })
      return { channel, ts, mentions }
    }

    const messages: Message[] = []
    /** Channels whose message was posted by this delivery: a new message carries no reactions yet. */
    const fresh = new Set<string>()
    for (const row of rows) messages.push(row)
    if (intents.some((i) => i.type === 'post')) {
      for (const target of await deps.limit(() => chooseTargets(event, route))) {
        if (allRows.some((m) => m.channel === target.channel)) continue
        const posted = await guard(target.channel, () => post(target.channel, target.mentions))
        if (posted) {
          messages.push(posted)
          fresh.add(posted.channel)
        }
      }
    }

    // A stored message meets a `post` intent only when an earlier run of this delivery posted it and was cut off.
    const rerender = intents.some((i) => i.type === 'update' || i.type === 'post')
    const reactionChanges = (channel: string): Array<{ add: boolean; reaction: ReactionKey }> => fresh.has(channel)
      ? next.context.reactions.map((reaction) => ({ add: true, reaction }))
      : intents.flatMap((i) => (i.type === 'addReaction' || i.type === 'removeReaction' ? [{ add: i.type === 'addReaction', reaction: i.reaction }] : []))

    for (const message of messages) {
      let current = message
      await guard(message.channel, async () => {
        if (rerender && !fresh.has(message.channel) && !unchanged(message)) {
          try {
            await slackCall('chat.update', message.channel, () => deps.slack.updateMessage(message.channel, message.ts, render(message)))
          } catch (error) {
            if (!isPrheraldError(error, 'slack_message_not_found')) throw error
            // Someone deleted the message: announce the pull request again rather than go silent.
            deps.logger.warn('slack message was deleted, posting a new one', { ...facts, channel: message.channel })
            current = await post(message.channel, message.mentions)
            fresh.add(current.channel)
          }
        }
        for (const { add, reaction } of reactionChanges(current.channel)) {
          const name = deps.reactions[reaction]
          const call = add ? deps.slack.addReaction : deps.slack.removeReaction
          // A reaction Slack refuses for good (say, an emoji name it does not know) is logged and skipped: the
          // message itself is right, and the row must still record this delivery, or the next one would start from before it.
          await guard(current.channel, () => slackCall(add ? 'reactions.add' : 'reactions.remove', current.channel, () => call(current.channel, current.ts, name)))
        }
      })
      // Saved even when Slack refused this channel's change for good: the lifecycle belongs to the pull request,
      // and a row left behind would later hand an old state to the machine.
      await save(current)
    }
    await deps.store.markApplied(event.provider, event.deliveryId)

    /** Permanent Slack errors are logged once with the fix and skip this channel; other errors propagate. */
    async function guard<T>(channel: string, run: () => Promise<T>): Promise<T | undefined> {
      try {
        return await run()
      } catch (error) {
        if (isPrheraldError(error, 'slack_permanent') || isPrheraldError(error, 'slack_message_not_found')) {
          deps.logger.error('slack rejected the change; dropping it for this channel', {
            ...facts, channel, slack_error: error.message, fix: error.fix,
          })
          return undefined
        }
        throw error
      }
    }
  }
}

export type ApplyEvent = ReturnType<typeof createLifecycle>
