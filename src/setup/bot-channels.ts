import { CHANNEL_ID } from '../config/schema.ts'
import { PrheraldError } from '../errors.ts'
import { callSlack, unreachable, type SlackCheckOptions } from '../checks/slack-api.ts'

export interface BotChannel {
  id: string
  name: string
}

const FIXES: Record<string, string> = {
  missing_scope: 'add the channels:read and groups:read bot scopes to the Slack app, reinstall it, or pass the channel ID with --channel',
}

/**
 * The channels the bot is a member of (users.conversations, every page), public and private, not archived.
 * They are the only ones it can post in, so they are the ones the wizard offers.
 */
export async function listBotChannels(slack: SlackCheckOptions): Promise<BotChannel[]> {
  const channels: BotChannel[] = []
  let cursor = ''
  do {
    let answer
    try {
      answer = await callSlack(slack, 'users.conversations', { types: 'public_channel,private_channel', exclude_archived: 'true', limit: '200', cursor })
    } catch (error) {
      const { reason, fix } = unreachable(slack.apiUrl, error)
      throw new PrheraldError('usage', reason, { fix })
    }
    if (!answer.data.ok) {
      const code = answer.data.error ?? 'unknown_error'
      throw new PrheraldError('usage', `users.conversations answered ${code}`, { fix: FIXES[code] ?? 'pass the channel ID with --channel' })
    }
    for (const c of (answer.data.channels ?? []) as Array<{ id?: string; name?: string }>) {
      if (c.id) channels.push({ id: c.id, name: c.name ?? c.id })
    }
    cursor = String((answer.data.response_metadata as { next_cursor?: string } | undefined)?.next_cursor ?? '')
  } while (cursor !== '')
  return channels.sort((a, b) => a.name.localeCompare(b.name))
}

/** `C0123456789`, `#general` or `general` to a channel ID: a name must be one of the bot's channels. */
export function resolveChannel(answer: string, channels: readonly BotChannel[]): string {
  const text = answer.trim()
  if (CHANNEL_ID.test(text)) return text
  const name = text.replace(/^#/, '').toLowerCase()
  const found = channels.find((c) => c.name.toLowerCase() === name)
  if (found) return found.id
  const known = channels.length === 0 ? 'the bot is in no channel yet' : `the bot is in ${channels.map((c) => `#${c.name}`).join(', ')}`
  throw new PrheraldError('usage', `the bot is not in a channel named #${name} (${known})`, {
    fix: `invite the bot in Slack (in #${name}: /invite @your-bot), then give the channel ID (C…) or run prherald-setup again`,
  })
}
