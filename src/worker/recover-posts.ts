import { errorFields, type Logger } from '../log/logger.ts'
import type { PostIntent, PullRequestRef, Store } from '../store/store.ts'
import { intentPrKey, type FindPost } from '../slack/find-post.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'

/**
 * At start-up, before pending deliveries are replayed: every post left with an unknown outcome (the
 * process died between recording the intent and saving the ts) is looked for in its channel. Found, its
 * ts is saved with the state from before its deliveries, so the replay updates it; not found, the intent
 * goes and the replay posts. Each lookup goes through the pacer (a 429 waits out its hold there) and is
 * otherwise tried once (the Slack client's own retries only), so that a Slack outage does not hold up the
 * start: an intent that could not be searched stays, and the next post of that pull request in that
 * channel looks for it first (post-once.ts).
 */
export async function recoverPosts(deps: { store: Store; findPost: FindPost; pacer: SlackPacer; logger: Logger }): Promise<void> {
  const intents = await deps.store.postIntents()
  if (intents.length === 0) return
  const counts = { found: 0, not_found: 0, not_searched: 0, settled_elsewhere: 0 }
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
      counts[await settleIntent(intent, deps)]++
    } catch (error) {
      deps.logger.warn('could not look for an interrupted post; its next post in the channel looks first', { ...facts, ...errorFields(error) })
      counts.not_searched++
    } finally {
      await release()
    }
  }))
  deps.logger.info('interrupted posts looked up', { count: intents.length, ...counts })
}

type SettleDeps = { store: Store; findPost: FindPost; pacer: SlackPacer; logger: Logger }

/** One intent looked for in its channel: found, its ts is saved (the message adopted); not found, it goes. */
async function settleIntent(intent: PostIntent, deps: SettleDeps): Promise<'found' | 'not_found'> {
  const { marker, createdAt: _createdAt, ...row } = intent
  const facts = { repository: row.repository, pr: row.prNumber, channel: row.channel, delivery_id: marker }
  const ts = await deps.findPost(intent, (method, run) => deps.pacer.call(method, row.channel, run), facts)
  if (!ts) {
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
export async function settleIntentsOf(ref: PullRequestRef, deps: SettleDeps): Promise<boolean> {
  const intents = (await deps.store.postIntents())
    .filter((i) => i.provider === ref.provider && i.repository === ref.repository && i.prNumber === ref.prNumber)
  let adopted = false
  for (const intent of intents) if (await settleIntent(intent, deps) === 'found') adopted = true
  return adopted
}
