import type { CheckResult } from './check-result.ts'
import { callSlack, unreachable, type SlackCheckOptions } from './slack-api.ts'

const CHANNEL_FIXES: Record<string, string> = {
  channel_not_found: 'check the channel ID in the config file; a private channel is only visible once the bot is invited (/invite @your-bot)',
  missing_scope: 'add the channels:read bot scope (and groups:read for private channels) to the Slack app and reinstall it',
  invalid_auth: 'SLACK_BOT_TOKEN is not valid; copy the Bot User OAuth Token (xoxb-…) from the Slack app',
}

/** slack-channel: `conversations.info` finds the channel, it is not archived, and the bot is a member. */
export async function slackChannelCheck(options: SlackCheckOptions, target: string, channel: string): Promise<CheckResult> {
  const fail = (reason: string, fix: string): CheckResult => ({ name: 'slack-channel', target, status: 'FAIL', reason, fix })
  let answer
  try {
    answer = await callSlack(options, 'conversations.info', { channel })
  } catch (error) {
    const { reason, fix } = unreachable(options.apiUrl, error)
    return fail(`${channel}: ${reason}`, fix)
  }
  if (!answer.data.ok) {
    const error = answer.data.error ?? 'unknown_error'
    return fail(`${channel}: conversations.info answered ${error}`, CHANNEL_FIXES[error] ?? 'see https://api.slack.com/methods/conversations.info for this error')
  }
  const info = (answer.data.channel ?? {}) as { name?: string; is_archived?: boolean; is_member?: boolean }
  const label = info.name ? `${channel} (#${info.name})` : channel
  if (info.is_archived) return fail(`${label} is archived`, 'unarchive the channel in Slack, or map the repository to another channel')
  if (info.is_member === false) {
    return fail(`the bot is not a member of ${label}`, `invite the bot: in ${info.name ? `#${info.name}` : 'the channel'}, type /invite @your-bot`)
  }
  return { name: 'slack-channel', target, status: 'OK', reason: `${label} exists, not archived, bot is a member` }
}
