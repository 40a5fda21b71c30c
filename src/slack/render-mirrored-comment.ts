import type { HostComment } from '../../machines/pull-request-event.ts'
import type { SlackMessage } from './slack-client.ts'
import { markdownToMrkdwn, shortenMrkdwn, type MrkdwnOptions } from './markdown-to-mrkdwn.ts'
import { escapeLinkUrl, escapeWithin } from './render-message.ts'

/** The Reply button on a mirrored code comment: its click opens the reply modal (personal/code-thread-reply.ts). */
export const CODE_REPLY_ACTION = 'prherald_code_reply'

/** A mirrored comment's text is cut here (a section holds 3000): a long one is read at the host. */
export const MIRROR_TEXT_LIMIT = 1500
/** A login is cut well inside Slack's sizes; no host allows one this long. */
const LOGIN_LIMIT = 200

export interface MirroredComment {
  comment: HostComment
  /** Who wrote it: the host's login (a Bitbucket nickname), shown as text, never as a mention. */
  author: string
  /** `GitHub`, `GitLab`, `Bitbucket`: "**dave** on GitHub". */
  hostName: string
  /** The Reply button's value (the pull request and the code thread), when replies can go back; absent: no button. */
  replyValue?: string | undefined
}

const placeOf = (c: HostComment) => {
  if (c.place === 'review') return ' (review)'
  if (c.place !== 'code' || !c.path) return ''
  const at = `\`${escapeWithin(c.path, 300)}${c.line === undefined ? '' : `:${c.line}`}\``
  return c.url ? ` on <${escapeLinkUrl(c.url)}|${at}>` : ` on ${at}`
}

/**
 * One comment from the pull request as a thread reply: "*dave* on GitHub: …" (a code comment names its file and
 * line, linked to it), the host's Markdown as mrkdwn, shortened with a link when long. A code comment whose
 * replies can go back carries the Reply button. Pure.
 */
export function renderMirroredComment(m: MirroredComment, options: MrkdwnOptions): SlackMessage {
  const who = `*${escapeWithin(m.author, LOGIN_LIMIT)}* on ${m.hostName}${placeOf(m.comment)}`
  const more = m.comment.url ? `<${escapeLinkUrl(m.comment.url)}|read it on ${m.hostName}>` : '(cut)'
  const body = shortenMrkdwn(markdownToMrkdwn(m.comment.body, options), MIRROR_TEXT_LIMIT, more)
  const text = `${who}: ${body}`
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text } }]
  if (m.replyValue) {
    blocks.push({ type: 'actions', elements: [{ type: 'button', action_id: CODE_REPLY_ACTION, text: { type: 'plain_text', text: 'Reply' }, value: m.replyValue }] })
  }
  return { text, blocks }
}

/** A batch's many comments as one reply: how many, by whom, and the pull request's link instead of each. Pure. */
export function renderFoldedComments(count: number, authors: readonly string[], hostName: string, url: string): SlackMessage {
  const names = authors.slice(0, 3).map((a) => escapeWithin(a, LOGIN_LIMIT))
  const others = authors.length - names.length
  const by = others > 0 ? `${names.join(', ')} and ${others} more` : names.join(', ')
  const text = `:speech_balloon: ${count} new comments on ${hostName} by ${by}: <${escapeLinkUrl(url)}|read them on the pull request>`
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }
}
