import type { SlackReply } from '../../machines/lifecycle-event.ts'
import { markerLine } from '../hosts/talk-back-contract.ts'
import { slackToMarkdown } from './slack-markdown.ts'

/**
 * A hidden line that names the reply a comment came from: a Markdown link reference definition, which GitHub,
 * GitLab and Bitbucket all keep in the comment's source and none shows. A create whose answer was lost is
 * found at the host by it (CommentApi.findComment).
 */
export const replyMarker = (channel: string, replyTs: string) => `prherald-reply ${channel} ${replyTs}`

/**
 * Any line of what a person wrote that could pass for a marker: a link reference definition naming
 * `prherald-reply`, however it is spelled (`[x]: <#> "prherald-reply …"`). It goes, so that nobody plants
 * another reply's marker in a comment.
 */
const PLANTED = /^ {0,3}\[[^\]\n]*\]:[^\n]*prherald-reply[^\n]*(?:\n|$)/gim

export interface ReplyBodyOptions {
  /** The host's mention for a Slack user, through `users:` (undefined: not mapped). */
  mention(slackUserId: string): string | undefined
  /** prherald's own account comments: the person is named first. */
  onBehalf: boolean
}

/** Pure: the comment a reply makes (or its edit becomes). */
export function replyBody(reply: Pick<SlackReply, 'channel' | 'replyTs' | 'user' | 'text' | 'files' | 'name'>, options: ReplyBodyOptions): string {
  const text = slackToMarkdown((reply.text ?? '').replace(PLANTED, ''), {
    mention: options.mention,
    files: (reply.files ?? []).map((f) => ({ name: f.name, permalink: f.url })),
  })
  // The name is the person's Slack name, not a host account: bold text, never a mention.
  const who = (reply.name ?? reply.user).replace(/[*_`[\]<>\\]/g, '')
  const said = options.onBehalf ? `**${who}** (from Slack): ${text}` : text
  return `${said}\n\n${markerLine(replyMarker(reply.channel, reply.replyTs))}`
}
