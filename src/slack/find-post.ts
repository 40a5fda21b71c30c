import type { LogFields, Logger } from '../log/logger.ts'
import { HISTORY_PAGES, postMarker, type HistoryWindow } from './find-marked-message.ts'
import type { SlackClient } from './slack-client.ts'
import type { SlackMethod } from './rate-limits.ts'
import type { PostIntent } from '../store/store.ts'

/** One Slack call as the executor makes it: through the pacer (its channel's budgets), transient failures retried. */
export type SlackCall = <T>(method: SlackMethod, run: () => Promise<T>) => Promise<T>

/** Looks for an intent's post in its channel: its ts, or undefined when it is not there (or cannot be searched). */
export type FindPost = (intent: PostIntent, call: SlackCall, facts: LogFields) => Promise<string | undefined>

/**
 * The search starts this long before the intent was recorded and ends this long after now: this host's clock
 * may be off Slack's either way (a clock off by more than the window missed the post, which was then made
 * twice). The marker in the metadata is what identifies the post; the window bounds what the search reads.
 */
export const CLOCK_SKEW_MS = 60 * 60_000

/** Where a post made since `since` (this host's clock, unix ms) can be in Slack's history, whatever the skew. */
export function searchWindow(since: number, now = Date.now()): HistoryWindow {
  return { oldest: new Date(since - CLOCK_SKEW_MS), latest: new Date(now + CLOCK_SKEW_MS) }
}

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
    // Each page is one paced call, retried on its own: a transient failure late in a long search keeps the pages read.
    const found = await deps.slack.findMarkedMessage(intent.channel, marker, searchWindow(intent.createdAt), (run) => call('conversations.history', run))
    if ('ts' in found) {
      if (found.bounded) {
        deps.logger.warn('slack history search stopped at its bound before the post\'s time; posting again (the message may show twice)', {
          ...facts, channel: intent.channel, pages: HISTORY_PAGES,
        })
      }
      return found.ts
    }
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
