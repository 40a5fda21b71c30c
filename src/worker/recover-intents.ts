import { errorFields, type Logger } from '../log/logger.ts'
import type { IntentStore, MessageStore, PostIntent, PullRequestRef, SharedWork } from '../store/store.ts'
import type { LeftIntent, Outbox } from '../slack/outbox.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import { DEFAULT_SLACK_TIMEOUT_MS } from '../slack/slack-api.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'

export interface RecoverDeps {
  /** Every kind's left intents, read when the recovery starts. */
  sources: ReadonlyArray<() => Promise<LeftIntent[]>>
  logger: Logger
  sleep: ShutdownSleep
  settleMs: number
}

const WORDS: Record<LeftIntent['kind'], string> = { post: 'posts', thread_reply: 'thread replies', direct_message: 'direct messages', comment: 'pull request comments' }
type Counts = Record<'count' | 'found' | 'not_found' | 'not_searched' | 'settled_elsewhere', number>

/**
 * At start-up, before pending deliveries are replayed and direct messages sent: every write left with an
 * unknown outcome (the process died between recording the intent and completing it), of every kind, is
 * looked for in Slack. Found, it is completed (a post's ts is saved with the state from before its
 * deliveries, so the replay updates it). Each look-up goes through the pacer and is otherwise tried once, so
 * that a Slack outage does not hold up the start: an intent that could not be searched stays, and its next
 * write looks for it first. A write that is not there yet may still be on its way: Slack carries a request
 * out up to a client timeout after the process died (chaos run #61). So an intent is dropped only when a
 * second look, a client timeout later (10 s at most), does not find it either; only a start that finds such
 * an intent waits.
 */
export async function recoverIntents(deps: RecoverDeps): Promise<void> {
  const intents = (await Promise.all(deps.sources.map((source) => source()))).flat()
  if (intents.length === 0) return
  const counts = new Map<LeftIntent['kind'], Counts>()
  for (const intent of intents) {
    const c = counts.get(intent.kind) ?? { count: 0, found: 0, not_found: 0, not_searched: 0, settled_elsewhere: 0 }
    c.count++
    counts.set(intent.kind, c)
  }
  const again = await lookUp(intents, counts, deps, 'keep')
  if (again.length > 0) {
    // At most the default client timeout: a longer one set for a slow network waits longer for Slack's
    // answer, not for Slack to carry out a request it already has.
    const waitMs = Math.min(deps.settleMs, DEFAULT_SLACK_TIMEOUT_MS)
    deps.logger.info('interrupted posts not in the channel yet; looking again once a post still on its way has landed', { count: again.length, wait_ms: waitMs })
    // Shut down meanwhile, the intents stay for the next start.
    if (await deps.sleep.sleep(waitMs).then(() => true, () => false)) {
      for (const { intent, unsearched } of again) if (unsearched) counts.get(intent.kind)!.not_searched--
      await lookUp(again.map((i) => i.intent), counts, deps, 'drop')
    } else for (const { intent, unsearched } of again) if (!unsearched) counts.get(intent.kind)!.not_searched++
  }
  for (const [kind, c] of counts) deps.logger.info(`interrupted ${WORDS[kind]} looked up`, { ...c })
}

/** One pass over `intents`; returns those to look at again (not found and kept, or not searched). */
async function lookUp(intents: LeftIntent[], counts: Map<LeftIntent['kind'], Counts>, deps: RecoverDeps, missing: 'keep' | 'drop') {
  const again: Array<{ intent: LeftIntent; unsearched: boolean }> = []
  await Promise.all(intents.map(async (intent) => {
    const c = counts.get(intent.kind)!
    let release: (() => Promise<void>) | undefined
    try {
      release = await intent.hold()
      if (!release) return void c.settled_elsewhere++
      const ts = await intent.find()
      if (ts) {
        await intent.complete(ts)
        deps.logger.info(`slack ${intent.kind.replace('_', ' ')} of an interrupted write found; adopting it`, { ...intent.facts, ts })
        c.found++
      } else if (missing === 'keep') again.push({ intent, unsearched: false })
      else {
        await intent.drop()
        c.not_found++
      }
    } catch (error) {
      deps.logger.warn('could not look for an interrupted write; its next try looks first', { ...intent.facts, ...errorFields(error) })
      c.not_searched++
      if (missing === 'keep') again.push({ intent, unsearched: true })
    } finally {
      await release?.()
    }
  }))
  return again
}

type SourceDeps = { store: IntentStore & MessageStore & SharedWork; outbox: Pick<Outbox, 'findPost' | 'findReply'>; pacer: SlackPacer }

const postFacts = (i: PostIntent) => ({ repository: i.repository, pr: i.prNumber, channel: i.channel, delivery_id: i.marker })

/** A post intent as a left intent; `lost`: the batch's lock, when a batch settles it (settleIntentsOf). */
function leftPost(intent: PostIntent, deps: SourceDeps, lost?: AbortSignal): LeftIntent {
  const { marker, createdAt: _createdAt, ...row } = intent
  return {
    kind: 'post', facts: postFacts(intent),
    async hold() {
      // Once the live replica's batch is over its intent is gone (or replaced): an old state must not be written over its rows.
      const release = await deps.store.lockPullRequest(pullRequestKey(intent))
      if ((await deps.store.findPostIntent(row, row.channel))?.marker === marker) return release
      await release()
      return undefined
    },
    find: () => deps.outbox.findPost(intent, (method, run) => deps.pacer.call(method, row.channel, run, lost), postFacts(intent)),
    complete: (ts) => deps.store.completePostIntent({ ...row, ts }),
    drop: () => deps.store.dropPostIntent(row, row.channel, marker),
  }
}

/** The start-up sources of the worker's kinds: posts and thread replies (direct messages: the sender's). */
export function pullRequestIntents(deps: SourceDeps): Array<() => Promise<LeftIntent[]>> {
  return [
    async () => (await deps.store.postIntents()).map((intent) => leftPost(intent, deps)),
    async () => (await deps.store.threadReplyIntents()).map((reply) => {
      const { channel, replyKey, createdAt } = reply
      const facts = { repository: reply.repository, pr: reply.prNumber, channel, reply_key: replyKey }
      const threadOf = async () => (await deps.store.findMessages(reply)).find((m) => m.channel === channel)?.ts
      return {
        kind: 'thread_reply' as const, facts,
        async hold() {
          const release = await deps.store.lockPullRequest(pullRequestKey(reply))
          const now = await deps.store.findThreadReply(reply, channel, replyKey)
          if (now && !now.ts && now.createdAt === createdAt) return release
          await release()
          return undefined
        },
        async find() {
          const threadTs = await threadOf()
          return threadTs ? deps.outbox.findReply(reply, channel, threadTs, replyKey, createdAt, (method, run) => deps.pacer.call(method, channel, run), facts) : undefined
        },
        complete: (ts) => deps.store.completeThreadReply(reply, channel, replyKey, ts),
        drop: () => deps.store.dropThreadReplyIntent(reply, channel, replyKey),
      }
    }),
  ]
}

/**
 * The post intents of one pull request settled inside its batch (the caller holds its lock): true when a
 * message was adopted. A batch that would record the pull request as ended before it was announced asks
 * first: a post whose outcome is unknown (the start-up look-up could not search, or the database went away
 * between the post and its commit) may be in the channel, and the end must reach it. A look-up that fails
 * fails the batch, which is retried: better late than an end recorded over a message that exists.
 */
export async function settleIntentsOf(ref: PullRequestRef, lost: AbortSignal, deps: SourceDeps): Promise<boolean> {
  const intents = (await deps.store.postIntents())
    .filter((i) => i.provider === ref.provider && i.repository === ref.repository && i.prNumber === ref.prNumber)
  let adopted = false
  for (const intent of intents) {
    const left = leftPost(intent, deps, lost)
    const ts = await left.find()
    if (ts) {
      await left.complete(ts)
      adopted = true
    } else await left.drop()
  }
  return adopted
}
