import type { DirectMessageEvent } from '../../machines/direct-message-events.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { escapeLinkUrl, escapeText, escapeWithin } from './render-message.ts'

/** The pull request as a link: `<url|acme/api#42 Title>`, the URL escaped, the title escaped and cut. */
export function pullRequestLink(context: Pick<PullRequestContext, 'url' | 'owner' | 'repo' | 'number' | 'title'>): string {
  const label = `${context.owner}/${context.repo}#${context.number} ${context.title}`
  return `<${escapeLinkUrl(context.url)}|${escapeWithin(label, 150).replaceAll('|', '¦')}>`
}

/** One line of a direct message: the pull request and the one thing that happened. Pure. */
export function renderDirectMessageLine(event: DirectMessageEvent, context: PullRequestContext): string {
  const link = pullRequestLink(context)
  const actor = escapeText(event.actor)
  switch (event.kind) {
    case 'review_requested':
      return event.to.type === 'team'
        ? `:eyes: Your team ${escapeText(event.to.name)} is asked to review ${link}`
        : `:eyes: Your review is requested on ${link}`
    case 'approved':
      return `:white_check_mark: ${actor} approved ${link}`
    case 'changes_requested':
      return `:exclamation: ${actor} asked for changes on ${link}`
    case 'commented':
      return `:speech_balloon: ${actor} commented on ${link}`
    case 'checks_failed':
      return `:red_circle: Checks are failing on ${link}`
    case 'merged':
      return `:twisted_rightwards_arrows: ${actor} merged ${link}`
  }
}

/** At most this many lines in one message: each is under 300 characters, and Slack's text object holds 3000. */
export const LINES_PER_MESSAGE = 9

/** The lines of one send, gathered: one line as it is; several (held over quiet hours) under one heading. */
export function gatherDirectMessage(lines: readonly string[]): string {
  if (lines.length === 1) return lines[0]!
  return [`While you were away (${lines.length} updates):`, ...lines.map((l) => `• ${l}`)].join('\n')
}
