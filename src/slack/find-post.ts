import type { LogFields, Logger } from '../log/logger.ts'
import { postMarker } from './find-marked-message.ts'
import type { SlackClient } from './slack-client.ts'
import type { SlackMethod } from './rate-limits.ts'
import type { PostIntent } from '../store/store.ts'

/** One Slack call as the executor makes it: through the pacer (its channel's budgets), transient failures retried. */
export type SlackCall = <T>(method: SlackMethod, run: () => Promise<T>) => Promise<T>

/** Looks for an intent's post in its channel: its ts, or undefined when it is not there (or cannot be searched). */
export type FindPost = (intent: PostIntent, call: SlackCall, facts: LogFields) => Promise<string | undefined>

/**
 * The search starts this long before the intent was recorded: this host's clock may be ahead of Slack's (a
 * clock off by more than the window missed the post, which was then made twice). The marker in the metadata
 * is what identifies the post; the window only bounds how far back the (paged, bounded) search reads.
 */
export const CLOCK_SKEW_MS = 60 * 60_000

export const intentPrKey = (intent: Pick<PostIntent, 'provider' | 'repository' | 'prNumber'>) =>
  `${intent.provider}:${intent.repository}#${intent.prNumber}`

/**
 * Without the history scope the search is impossible: prherald then posts again, as it did before it could
 * search (a lost answer may then show the message twice), and says once per scope what to add.
 */
export function createFindPost(deps: { slack: SlackClient; logger: Logger }): FindPost {
  const warned = new Set<string>()
  return async (intent, call, facts) => {
    const marker = postMarker(intentPrKey(intent), intent.marker)
    const oldest = new Date(intent.createdAt - CLOCK_SKEW_MS)
    const found = await call('conversations.history', () => deps.slack.findMarkedMessage(intent.channel, marker, oldest))
    if ('ts' in found) return found.ts
    if (!warned.has(found.missingScope)) {
      warned.add(found.missingScope)
      deps.logger.warn('slack token cannot read channel history; posting again without looking (the message may show twice)', {
        ...facts, channel: intent.channel, scope: found.missingScope,
        fix: `add the ${found.missingScope} bot scope to the Slack app (docs/slack-app.md), reinstall it, and set the new SLACK_BOT_TOKEN`,
      })
    }
    return undefined
  }
}
