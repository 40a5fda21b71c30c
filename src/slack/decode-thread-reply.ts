import { at, str } from '../read-fields.ts'

/** A thread reply as a Slack `message` event tells it: what happened to which reply, in which thread. */
export interface ThreadReplyFacts {
  action: 'post' | 'edit' | 'delete'
  channel: string
  /** The pull request's message, if this thread is one of prherald's. */
  threadTs: string
  replyTs: string
  user: string
  text?: string
  files?: Array<{ name: string; url: string }>
  /**
   * The person's own workspace, when the event names it (`user_team`): in a Slack Connect channel, another
   * workspace's. Never their name: the event's `user_profile` is what each person set, so anyone can be "Alice".
   */
  userTeam?: string
}

export type DecodedReply = { reply: ThreadReplyFacts } | { ignored: 'not_a_reply' | 'bot' | 'unchanged' | 'other_subtype' }

/** Subtypes of a person's new message: plain, sent to the channel too, or with files. */
const POSTED = new Set([undefined, 'thread_broadcast', 'file_share'])

function filesOf(message: unknown): Array<{ name: string; url: string }> {
  const files = at(message, 'files')
  if (!Array.isArray(files)) return []
  return files.flatMap((f: unknown) => {
    const url = str(f, 'permalink') ?? str(f, 'url_private')
    return url ? [{ name: str(f, 'name') ?? str(f, 'title') ?? 'file', url }] : []
  })
}

/**
 * Slackbot's messages (its reminders, its auto-responses) carry no `bot_id` but are no one's reply
 * (docs.slack.dev, "Slackbot": user `USLACKBOT`).
 */
const SLACKBOT = 'USLACKBOT'

const sameFiles = (a: ReadonlyArray<{ url: string }>, b: ReadonlyArray<{ url: string }>) => a.length === b.length && a.every((f, i) => f.url === b[i]!.url)

/**
 * Pure: a `message` event (message.channels, message.groups) into a reply's post, edit or deletion, or why it
 * is none. A reply is a message whose `thread_ts` is not its own `ts`. An edit counts only when its text or
 * files changed: Slack sends `message_changed` for a link's unfurl too, which changes nothing a comment shows.
 */
export function decodeThreadReply(event: unknown): DecodedReply {
  if (str(event, 'type') !== 'message') return { ignored: 'not_a_reply' }
  const channel = str(event, 'channel')
  const subtype = str(event, 'subtype')
  const isBot = (m: unknown) => str(m, 'bot_id') !== undefined || str(m, 'subtype') === 'bot_message' || at(m, 'bot_profile') !== undefined
  const reply = (action: ThreadReplyFacts['action'], m: unknown, ts: string | undefined, withText: boolean): DecodedReply => {
    const threadTs = str(m, 'thread_ts')
    const user = str(m, 'user')
    if (!channel || !threadTs || !ts || ts === threadTs || !user) return { ignored: 'not_a_reply' }
    if (isBot(m) || user === SLACKBOT) return { ignored: 'bot' }
    const userTeam = str(m, 'user_team')
    return { reply: { action, channel, threadTs, replyTs: ts, user, ...(userTeam ? { userTeam } : {}), ...(withText ? { text: str(m, 'text') ?? '', files: filesOf(m) } : {}) } }
  }
  if (POSTED.has(subtype)) return reply('post', event, str(event, 'ts'), true)
  if (subtype === 'message_changed') {
    const message = at(event, 'message')
    const previous = at(event, 'previous_message')
    if (str(message, 'text') === str(previous, 'text') && sameFiles(filesOf(message), filesOf(previous))) {
      return str(message, 'thread_ts') ? { ignored: 'unchanged' } : { ignored: 'not_a_reply' }
    }
    return reply('edit', message, str(message, 'ts'), true)
  }
  if (subtype === 'message_deleted') return reply('delete', at(event, 'previous_message'), str(event, 'deleted_ts'), false)
  return { ignored: 'other_subtype' }
}
