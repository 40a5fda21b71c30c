import type { ThreadEvent, ThreadEventKind } from '../../machines/thread-events.ts'
import { escapeWithin } from './render-message.ts'

/** A login from the git host is cut well inside Slack's sizes; no host allows one this long. */
const LOGIN_LIMIT = 200

const LINES: Record<ThreadEventKind, (actor: string) => string> = {
  approved: (a) => `:white_check_mark: ${a} approved`,
  changes_requested: (a) => `:exclamation: ${a} requested changes`,
  review_dismissed: (a) => `:leftwards_arrow_with_hook: ${a}'s review was dismissed`,
  approval_removed: (a) => `:leftwards_arrow_with_hook: ${a} removed their approval`,
  changes_request_removed: (a) => `:leftwards_arrow_with_hook: ${a} removed their change request`,
  merged: (a) => `:twisted_rightwards_arrows: merged by ${a}`,
  closed: (a) => `:x: closed by ${a}`,
  reopened: (a) => `:arrows_counterclockwise: reopened by ${a}`,
  back_to_draft: (a) => `:construction: ${a} moved it back to draft`,
}

/**
 * The text of one thread reply, e.g. ":white_check_mark: carol approved". Pure. Names stay plain text (a
 * reply is a new message, so a mention in it would notify), except the author of a pull request that got a
 * change request: `slackUser` maps them to a Slack user ID, and that one mention is the point of the reply.
 */
export function renderThreadReply(event: ThreadEvent, slackUser: (login: string) => string | undefined = () => undefined): string {
  const line = LINES[event.kind](escapeWithin(event.actor, LOGIN_LIMIT))
  const author = event.kind === 'changes_requested' ? slackUser(event.author) : undefined
  return author ? `${line} · <@${author}>` : line
}
