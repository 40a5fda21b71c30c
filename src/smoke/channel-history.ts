import { callSlack, unreachable, type SlackCheckOptions } from '../checks/slack-api.ts'
import { PrheraldError } from '../errors.ts'
import { PERMANENT_SLACK_ERRORS } from '../slack/classify-slack-error.ts'

export interface ChannelMessage {
  ts: string
  text: string
  reactions: string[]
}

const HISTORY_FIXES: Record<string, string> = {
  not_in_channel: 'the bot is not in the channel, so the server cannot post there either: in Slack, open the channel and type /invite @your-bot',
  missing_scope: 'prherald-smoke reads the channel with conversations.history: add the channels:history bot scope (groups:history for a private channel) and reinstall the Slack app',
  channel_not_found: 'check the channel ID in config.yaml; a private channel is visible only once the bot is invited',
}

/** The channel's latest messages (conversations.history). Throws a PrheraldError with the fix when Slack refuses. */
export async function readChannel(slack: SlackCheckOptions, channel: string): Promise<ChannelMessage[]> {
  let answer
  try {
    answer = await callSlack(slack, 'conversations.history', { channel, limit: '50' })
  } catch (error) {
    const { reason, fix } = unreachable(slack.apiUrl, error)
    throw new PrheraldError('slack_transient', reason, { fix })
  }
  if (!answer.data.ok) {
    const code = answer.data.error ?? 'unknown_error'
    throw new PrheraldError('slack_permanent', `conversations.history in ${channel} answered ${code}`, {
      fix: HISTORY_FIXES[code] ?? PERMANENT_SLACK_ERRORS[code] ?? 'see https://api.slack.com/methods/conversations.history for this error',
    })
  }
  const messages = (answer.data.messages ?? []) as Array<{ ts?: string; text?: string; reactions?: Array<{ name?: string }> }>
  return messages.filter((m) => typeof m.ts === 'string').map((m) => ({
    ts: m.ts!, text: m.text ?? '', reactions: (m.reactions ?? []).flatMap((r) => (r.name ? [r.name] : [])),
  }))
}
