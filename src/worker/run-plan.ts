import type { StoredLifecycle } from '../../machines/decide.ts'
import type { ReactionSettings } from '../config/settings.ts'
import type { RenderOptions } from '../slack/render-review.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type LogFields, type Logger } from '../log/logger.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { MessageRecord, MessageStore, PullRequestRef } from '../store/store.ts'
import { planMessage, unposted, type MessagePlan, type SlackChange } from './plan-changes.ts'
import type { Outbox, SlackCall } from '../slack/outbox.ts'
import { retryTransient, type RetryPolicy } from '../slack/retry-transient.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { People } from '../slack/person-names.ts'
import type { BatchContext } from './run-batch.ts'

export interface PlanRunnerDeps {
  store: MessageStore
  slack: SlackClient
  logger: Logger
  retry: RetryPolicy
  /** Backoff between retries; ends at shutdown, and the delivery stays pending. */
  sleep: ShutdownSleep
  /** Shared by every mailbox: every Slack call waits here for its method's (and channel's) budget. */
  pacer: SlackPacer
  /** Posts at most once across timeouts and crashes. */
  outbox: Outbox
}

/** The pull request the plan belongs to, and what its rows are saved with. */
export interface PlanContext {
  ref: PullRequestRef
  /** Log fields naming the pull request and the delivery (never its payload). */
  facts: LogFields
  next: StoredLifecycle
  /** The repository's reactions, after inheritance (a message posted again gets them all). */
  reactions: ReactionSettings
  /** The render options the plan was made with (a message posted again is rendered with them too). */
  render?: RenderOptions
  /** What a freshly posted message's row holds until the outcome is committed: the state before these deliveries. */
  beforePost: Pick<MessageRecord, 'state' | 'lifecycle' | 'lastDeliveryId'>
  /** The delivery the plan brings the messages to (the batch's last); a new post carries it in its metadata. */
  deliveryId: string
  /** Who is a Slack user, as the plan was made with. */
  people?: People
}

/** A message as it stands after its plan ran: what the outcome's row is saved with. */
export interface PlacedMessage {
  channel: string
  ts: string
  mentions: string[]
  reactions: string[]
}

/**
 * One Slack call of a batch in `channel`: through the pacer (the channel's budgets, the batch's lock), a
 * transient failure retried with backoff there, never inside the client.
 */
export function pacedCall(deps: Pick<PlanRunnerDeps, 'pacer' | 'retry' | 'sleep' | 'logger'>, channel: string, lost: AbortSignal, facts: LogFields): SlackCall {
  return (method, run) => retryTransient(() => deps.pacer.call(method, channel, run, lost), {
    policy: deps.retry,
    sleep: deps.sleep,
    onRetry: (attempt, delayMs, error) => deps.logger.warn('slack call failed, retrying', { ...facts, call: method, attempt, delay_ms: delayMs, ...errorFields(error) }),
  })
}

/**
 * The executor: carries out one channel's plan against Slack, in order, with retries for transient
 * failures. It decides nothing except how to recover: a message someone deleted is posted again. A
 * post goes through the outbox (slack/outbox.ts), which records the intent first and saves the ts at once (with the state
 * from before the deliveries, so a replay after a crash updates that message instead of posting another).
 * Returns undefined when the channel has no message.
 */
export function createPlanRunner(deps: PlanRunnerDeps) {
  return async function runPlan(plan: MessagePlan, context: PlanContext, batch: BatchContext): Promise<PlacedMessage | undefined> {
    const facts = { ...context.facts, channel: plan.channel }
    const call = pacedCall(deps, plan.channel, batch.lost, facts)
    const done: string[] = []
    let ts = plan.ts

    // A change that settles (answered, failed or timed out) after the batch's lock went is remembered, so that
    // it can be repainted over. So is one the pacer refused because the lock was already gone: an earlier try
    // of it may have been carried out, and a repaint that finds nothing to do costs nothing.
    const changeOf = async <T>(change: SlackChange, send: () => Promise<T>): Promise<T> => {
      try {
        return await send()
      } finally {
        if (batch.lost.aborted) batch.changedAfterLoss.push({ ref: context.ref, channel: plan.channel, next: context.next, reactions: context.reactions, change })
      }
    }
    const apply = async (change: SlackChange): Promise<void> => {
      switch (change.type) {
        case 'post': {
          const row = { ...context.ref, channel: plan.channel, mentions: plan.mentions, reactions: [], ...context.beforePost }
          const posted = await deps.outbox.post({ row, message: change.message, deliveryId: context.deliveryId, facts, call })
          ts = posted.ts
          done.push('posted')
          // An earlier batch's post, adopted: it shows that batch's state, and the reactions below assume this one's.
          if (posted.earlier) await apply({ type: 'update', message: change.message })
          return
        }
        case 'update':
          await changeOf(change, () => call('chat.update', () => deps.slack.updateMessage(plan.channel, ts!, change.message)))
          done.push('updated')
          return
        case 'addReaction':
        case 'removeReaction': {
          const add = change.type === 'addReaction'
          // A reaction Slack refuses for good (say, an emoji name it does not know) is logged and skipped: the
          // message itself is right, and the row must still record these deliveries.
          const applied = await guard(() => changeOf(change, () => call(add ? 'reactions.add' : 'reactions.remove', () =>
            (add ? deps.slack.addReaction : deps.slack.removeReaction)(plan.channel, ts!, change.name).then(() => true))))
          if (applied) done.push(`${add ? '+' : '-'}${change.name}`)
        }
      }
    }

    const run = async (changes: SlackChange[]): Promise<void> => {
      for (const change of changes) {
        try {
          await apply(change)
        } catch (error) {
          if (change.type !== 'update' || !isPrheraldError(error, 'slack_message_not_found')) throw error
          // Someone deleted the message: announce the pull request again rather than go silent.
          deps.logger.warn('slack message was deleted, posting a new one', facts)
          ts = undefined
          return run(planMessage(unposted(plan), context.next, context.reactions, context.people, context.render).changes)
        }
      }
    }

    await guard(() => run(plan.changes))
    if (done.length > 0) deps.logger.info('slack message changed', { ...facts, ts, changes: done })
    return ts === undefined ? undefined : { channel: plan.channel, ts, mentions: plan.mentions, reactions: plan.reactions }

    /** Permanent Slack errors are logged once with the fix and skip the rest of this channel; others propagate. */
    async function guard<T>(work: () => Promise<T>): Promise<T | undefined> {
      try {
        return await work()
      } catch (error) {
        if (isPrheraldError(error, 'slack_permanent') || isPrheraldError(error, 'slack_message_not_found')) {
          deps.logger.error('slack rejected the change; dropping it for this channel', { ...facts, slack_error: error.message, fix: error.fix })
          return undefined
        }
        throw error
      }
    }
  }
}
