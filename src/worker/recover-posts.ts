import { errorFields, type Logger } from '../log/logger.ts'
import type { Store } from '../store/store.ts'
import { intentPrKey, type FindPost, type SlackCall } from '../slack/find-post.ts'
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
    const once: SlackCall = (method, run) => deps.pacer.call(method, row.channel, run)
    // Under the pull request's lock: on PostgreSQL the intent may be a live replica's post in flight. Once
    // that replica's batch is over, its intent is gone (or replaced), and an old state must not be written over its rows.
    const release = await deps.store.lockPullRequest(intentPrKey(intent))
    try {
      if ((await deps.store.findPostIntent(row, row.channel))?.marker !== marker) {
        counts.settled_elsewhere++
        return
      }
      const ts = await deps.findPost(intent, once, facts)
      if (ts) {
        await deps.store.completePostIntent({ ...row, ts })
        deps.logger.info('slack message of an interrupted post found; adopting it', { ...facts, ts })
        counts.found++
      } else {
        await deps.store.dropPostIntent(row, row.channel, marker)
        counts.not_found++
      }
    } catch (error) {
      deps.logger.warn('could not look for an interrupted post; its next post in the channel looks first', { ...facts, ...errorFields(error) })
      counts.not_searched++
    } finally {
      await release()
    }
  }))
  deps.logger.info('interrupted posts looked up', { count: intents.length, ...counts })
}
