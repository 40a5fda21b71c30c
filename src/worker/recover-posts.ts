import { errorFields, type Logger } from '../log/logger.ts'
import type { PostIntent, PullRequestRef, Store } from '../store/store.ts'
import { intentPrKey, type FindPost } from '../slack/find-post.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import { DEFAULT_SLACK_TIMEOUT_MS } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'

/**
 * At start-up, before pending deliveries are replayed: every post left with an unknown outcome (the
 * process died between recording the intent and saving the ts) is looked for in its channel. Found, its
 * ts is saved with the state from before its deliveries, so the replay updates it. Each lookup goes through
 * the pacer (a 429 waits out its hold there) and is otherwise tried once (the Slack client's own retries
 * only), so that a Slack outage does not hold up the start: an intent that could not be searched stays, and
 * the next post of that pull request in that channel looks for it first (post-once.ts).
 * A post that is not there yet may still be on its way: the process may have died with the request sent and
 * Slack carries it out up to a client timeout later (chaos run #61: dropped at once, the replay then saw no
 * message and the post landed after it). So an intent is dropped only when a second look, a client timeout
 * later (10 s at most), does not find its post either; only a start that finds such an intent waits.
 */
export async function recoverPosts(deps: RecoverDeps): Promise<void> {
  const intents = await deps.store.postIntents()
  if (intents.length === 0) return
  const counts = { found: 0, not_found: 0, not_searched: 0, settled_elsewhere: 0 }
  const again = await lookUp(intents, deps, counts, 'keep')
  if (again.length > 0) {
    // At most the default client timeout: a longer one set for a slow network waits longer for Slack's
    // answer, not for Slack to carry out a request it already has.
    const waitMs = Math.min(deps.settleMs, DEFAULT_SLACK_TIMEOUT_MS)
    deps.logger.info('interrupted posts not in the channel yet; looking again once a post still on its way has landed', { count: again.length, wait_ms: waitMs })
    // Shut down meanwhile, the intents stay for the next start.
    if (await deps.sleep.sleep(waitMs).then(() => true, () => false)) {
      counts.not_searched -= again.filter((i) => i.unsearched).length
      await lookUp(again.map((i) => i.intent), deps, counts, 'drop')
    } else counts.not_searched += again.filter((i) => !i.unsearched).length
  }
  deps.logger.info('interrupted posts looked up', { count: intents.length, ...counts })
}

type RecoverDeps = SettleDeps & { sleep: ShutdownSleep; settleMs: number }
type Counts = Record<'found' | 'not_found' | 'not_searched' | 'settled_elsewhere', number>

/** One pass over `intents`; returns those to look at again (not found and kept, or not searched). */
async function lookUp(intents: PostIntent[], deps: SettleDeps, counts: Counts, missing: 'keep' | 'drop') {
  const again: Array<{ intent: PostIntent; unsearched: boolean }> = []
  await Promise.all(intents.map(async (intent) => {
    const { marker, createdAt: _createdAt, ...row } = intent
    const facts = { repository: row.repository, pr: row.prNumber, channel: row.channel, delivery_id: marker }
    // Under the pull request's lock: on PostgreSQL the intent may be a live replica's post in flight. Once
    // that replica's batch is over, its intent is gone (or replaced), and an old state must not be written over its rows.
    const release = await deps.store.lockPullRequest(intentPrKey(intent))
    try {
      if ((await deps.store.findPostIntent(row, row.channel))?.marker !== marker) {
        counts.settled_elsewhere++
        return
      }
      const outcome = await settleIntent(intent, deps, missing)
      if (outcome === 'kept') again.push({ intent, unsearched: false })
      else counts[outcome]++
    } catch (error) {
      deps.logger.warn('could not look for an interrupted post; its next post in the channel looks first', { ...facts, ...errorFields(error) })
      counts.not_searched++
      if (missing === 'keep') again.push({ intent, unsearched: true })
    } finally {
      await release()
    }
  }))
  return again
}

type SettleDeps = { store: Store; findPost: FindPost; pacer: SlackPacer; logger: Logger }

/** One intent looked for in its channel: found, its ts is saved (the message adopted); not found, it goes (or is kept). */
async function settleIntent(intent: PostIntent, deps: SettleDeps, missing: 'keep' | 'drop' = 'drop', lost?: AbortSignal): Promise<'found' | 'not_found' | 'kept'> {
  const { marker, createdAt: _createdAt, ...row } = intent
  const facts = { repository: row.repository, pr: row.prNumber, channel: row.channel, delivery_id: marker }
  const ts = await deps.findPost(intent, (method, run) => deps.pacer.call(method, row.channel, run, lost), facts)
  if (!ts) {
    if (missing === 'keep') return 'kept'
    await deps.store.dropPostIntent(row, row.channel, marker)
    return 'not_found'
  }
  await deps.store.completePostIntent({ ...row, ts })
  deps.logger.info('slack message of an interrupted post found; adopting it', { ...facts, ts })
  return 'found'
}

/**
 * The intents of one pull request settled inside its batch (the caller holds its lock): true when a message
 * was adopted. A batch that would record the pull request as ended before it was announced asks first: a
 * post whose outcome is unknown (the start-up look-up could not search, or the database went away between
 * the post and its commit) may be in the channel, and the end must reach it. A look-up that fails fails the
 * batch, which is retried: better late than an end recorded over a message that exists.
 */
export async function settleIntentsOf(ref: PullRequestRef, lost: AbortSignal, deps: SettleDeps): Promise<boolean> {
  const intents = (await deps.store.postIntents())
    .filter((i) => i.provider === ref.provider && i.repository === ref.repository && i.prNumber === ref.prNumber)
  let adopted = false
  for (const intent of intents) if (await settleIntent(intent, deps, 'drop', lost) === 'found') adopted = true
  return adopted
}
