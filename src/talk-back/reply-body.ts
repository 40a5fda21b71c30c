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
  /**
   * prherald's own account comments: the person is named first, by the name their workspace's record gives
   * (users.info's real name, undefined when it could not be read) and their Slack user id; never by a name an
   * event carries, which each person sets. false: the person's own account comments.
   */
  onBehalf: false | { realName: string | undefined }
}

/** The person as prherald's comment names them: their Slack name, not a host account (bold, never a mention), and the id that says which person it is. */
function named(user: string, realName: string | undefined): string {
  const name = realName?.replace(/[*_`[\]<>\\@]/g, '').trim()
  return name ? `**${name}** (Slack user \`${user}\`)` : `**Someone in Slack** (user \`${user}\`, whose name Slack did not give)`
}

/** Pure: the comment a reply makes (or its edit becomes). */
export function replyBody(reply: Pick<SlackReply, 'channel' | 'replyTs' | 'user' | 'text' | 'files'>, options: ReplyBodyOptions): string {
  const text = slackToMarkdown((reply.text ?? '').replace(PLANTED, ''), {
    mention: options.mention,
    files: (reply.files ?? []).map((f) => ({ name: f.name, permalink: f.url })),
    // Only the mentions `users:` maps ping anyone through prherald's account; a typed @name is shown, inert.
    inertMentions: options.onBehalf !== false,
  })
  const said = options.onBehalf === false ? text : `${named(reply.user, options.onBehalf.realName)}: ${text}`
  return `${said}\n\n${markerLine(replyMarker(reply.channel, reply.replyTs))}`
}
