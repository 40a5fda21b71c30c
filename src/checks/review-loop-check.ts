import { CHANNEL_ID } from '../config/schema.ts'
import type { Settings } from '../config/settings.ts'
import type { CheckResult } from './check-result.ts'
import type { SlackCheckOptions } from './slack-api.ts'
import { slackAuthCheck } from './slack-auth-check.ts'
import { slackChannelCheck } from './slack-channel-check.ts'

/** The bot scope the weekly summary's chart needs: files.getUploadURLExternal and files.completeUploadExternal. */
export const WEEKLY_SCOPE = 'files:write'

type ReviewLoopSettings = Pick<Settings, 'insights' | 'mergedWithoutApproval'>

/** The scopes the review loop, as configured, needs besides the lifecycle's: files:write with insights.weekly. */
export function reviewLoopScopes(settings: ReviewLoopSettings): string[] {
  return settings.insights.weekly.length > 0 ? [WEEKLY_SCOPE] : []
}

/**
 * The channels the review loop posts in that no mapping names: each `insights.weekly` channel, and
 * `notify.merged_without_approval`'s when it is a channel (not `thread`), each with the key that names it.
 */
export function reviewLoopChannels(settings: ReviewLoopSettings): Array<{ target: string; channel: string }> {
  const merged = settings.mergedWithoutApproval
  return [
    ...settings.insights.weekly.map((w) => ({ target: 'insights.weekly', channel: w.channel })),
    ...(merged !== undefined && CHANNEL_ID.test(merged) ? [{ target: 'notify.merged_without_approval', channel: merged }] : []),
  ]
}

/**
 * Each of those channels is one the bot can post in: slack-channel's check (conversations.info finds it, it is
 * not archived, the bot is a member). One list for prherald-doctor's [review loop] section and the server's
 * start, which refuses to start on a FAIL as it does for a mapping's channel (a Slack that does not answer
 * only warns): the two never disagree.
 */
export async function reviewLoopChannelResults(slack: SlackCheckOptions | undefined, settings: ReviewLoopSettings): Promise<CheckResult[]> {
  const channels = reviewLoopChannels(settings)
  if (!slack) {
    return channels.map(({ target, channel }) => ({ name: 'slack-channel', target, status: 'SKIP', reason: `${channel} not checked: SLACK_BOT_TOKEN is not set` }))
  }
  const results: CheckResult[] = []
  for (const { target, channel } of channels) results.push({ ...(await slackChannelCheck(slack, target, channel)), target })
  return results
}

/**
 * prherald-doctor's [review loop]: with `insights.weekly`, the token carries files:write (slack-auth's check,
 * with the scope the weekly chart needs); then each channel above. Empty when the review loop posts nowhere of
 * its own.
 */
export async function reviewLoopSection(slack: SlackCheckOptions | undefined, settings: ReviewLoopSettings): Promise<CheckResult[]> {
  const scopes = reviewLoopScopes(settings)
  const auth = scopes.length > 0 ? [await slackAuthCheck(slack, [], scopes)] : []
  if (auth.some((r) => r.status === 'FAIL')) {
    return [...auth, ...reviewLoopChannels(settings).map(({ target, channel }): CheckResult => ({ name: 'slack-channel', target, status: 'SKIP', reason: `${channel} not checked: slack-auth failed` }))]
  }
  return [...auth, ...await reviewLoopChannelResults(slack, settings)]
}
