import { checksVerdict } from '../../machines/check-facts.ts'
import type { StoredLifecycle } from '../../machines/decide.ts'
import type { DependencyBump } from '../../machines/dependency-bump.ts'
import { NO_BUTTON, reviewBlocks, type ActionsBlock, type RenderOptions } from './render-review.ts'
import { referenceOf } from '../../machines/pull-request-event.ts'
import { waitingOn } from '../../machines/review-requests.ts'
import { personName, reviewerName, type Named, type People } from './person-names.ts'

/** The Block Kit blocks the message uses; enough for chat.postMessage / chat.update. */
export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }
  | ActionsBlock

export interface RenderedMessage {
  /** Plain fallback, shown in notifications and by clients that cannot draw blocks. */
  text: string
  blocks: SlackBlock[]
}

/**
 * Slack's sizes (docs.slack.dev): a text object, so a section's text and each context element's, holds at most
 * 3000 characters; a message's top-level `text` 40,000. Over them Slack refuses the call (`invalid_blocks`,
 * `msg_too_long`) and the pull request would never be announced. Lengths here are UTF-16 code units of the
 * escaped text, what is sent, which is never fewer characters than Slack counts.
 */
export const SLACK_LIMITS = { blockText: 3000, messageText: 40_000 } as const

/** Shares of one block's text given to the pieces that come from the git host or the config. */
// A branch: the hosts keep names far shorter; the context line (repository, author, date, branch) stays in one element.
const PIECE_LIMIT = { repository: 1000, author: 1000, url: 1000, branch: 255 } as const
/** Mentions are never cut inside a token; trailing ones are left out only if the title would get less than this. */
const MIN_TITLE = 200
const ELLIPSIS = '…'
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' })

/** Slack reads `&`, `<` and `>` as control characters in mrkdwn, so text from the git host must escape them. */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/**
 * A URL from the git host as the target of `<url|label>`: escaped like any text, and a `|` (which would end
 * the target and make the rest a label of the sender's choosing) as `%7C`, which means the same to a browser.
 */
export function escapeLinkUrl(url: string): string {
  return escapeText(url).replaceAll('|', '%7C')
}

/**
 * `text` escaped, at most `max` long: cut in the plain text, on a grapheme boundary (never inside an escape,
 * an emoji or a surrogate pair), with an ellipsis where it was cut. Stops reading at the cut, so a 100k title costs little.
 */
export function escapeWithin(text: string, max: number): string {
  const whole = escapeText(text)
  if (whole.length <= max) return whole
  if (max < ELLIPSIS.length) return ''
  let kept = ''
  for (const { segment } of graphemes.segment(text)) {
    const piece = escapeText(segment)
    if (kept.length + piece.length > max - ELLIPSIS.length) break
    kept += piece
  }
  return `${kept.trimEnd()}${ELLIPSIS}`
}

const ENDED_LABEL = { merged: '[Merged]', closed: '[Closed]' } as const

/**
 * The status line's pieces, each person through `show`: `Approved by a, b · Changes requested by c · Waiting
 * on d, acme/backend · 2 comments`. Nobody is waited on once the pull request ended.
 */
function statusParts(lifecycle: StoredLifecycle, people: People | undefined, show: (named: Named) => string): string[] {
  const { state, context } = lifecycle
  const list = (logins: readonly string[]) => logins.map((login) => show(personName(context, people, login))).join(', ')
  const parts: string[] = []
  if (state === 'draft') parts.push('Draft')
  if (state === 'merged') parts.push('Merged')
  if (state === 'closed') parts.push('Closed')
  if (context.approvedBy.length > 0) parts.push(`Approved by ${list(context.approvedBy)}`)
  if (context.changesRequestedBy.length > 0) parts.push(`Changes requested by ${list(context.changesRequestedBy)}`)
  const waiting = state === 'merged' || state === 'closed' ? [] : waitingOn(context)
  if (waiting.length > 0) parts.push(`Waiting on ${waiting.map((r) => show(reviewerName(context, people, r))).join(', ')}`)
  if (context.commentCount > 0) parts.push(`${context.commentCount} ${context.commentCount === 1 ? 'comment' : 'comments'}`)
  const checks = checksVerdict(context)
  if (checks) parts.push(checks === 'failing' ? 'Checks failing' : 'Checks passing')
  return parts.length > 0 ? parts : ['Open']
}

const plainOf = (named: Named) => ('token' in named ? named.token : named.plain)

/** Where the pull request stands, with plain names. Unescaped; the fallback text and the digest use it. */
export function statusLine(lifecycle: StoredLifecycle): string {
  return statusParts(lifecycle, undefined, plainOf).join(' · ')
}

/**
 * The status line as mrkdwn: mapped people as mention tokens, the rest escaped. Tokens cannot be cut, so a
 * line over a block's size (hundreds of reviewers) falls back to plain names, cut as any text from the host.
 */
function statusMrkdwn(lifecycle: StoredLifecycle, people: People | undefined): string {
  const rich = statusParts(lifecycle, people, (named) => ('token' in named ? named.token : escapeText(named.plain))).join(' · ')
  return rich.length <= SLACK_LIMITS.blockText ? rich : escapeWithin(statusLine(lifecycle), SLACK_LIMITS.blockText)
}

/** The author for the context line: a mention when mapped, else the escaped login, cut like any piece. */
function authorMrkdwn(lifecycle: StoredLifecycle, people: People | undefined): string {
  const named = personName(lifecycle.context, people, lifecycle.context.author)
  return 'token' in named ? named.token : escapeWithin(named.plain, PIECE_LIMIT.author)
}

/**
 * The target branch, once the pull request was retargeted after its message was posted (docs/routing.md, "Only and
 * ignore"): ` · into `release/2.4``. Before that the message names none, as it always has: most go to the one
 * branch everybody expects, and the hosts' webhooks do not all say which branch is the default.
 */
function targetMrkdwn(context: StoredLifecycle['context']): string {
  // A backtick may be in a branch's name (git allows it) but would end the code span.
  return context.retargeted && context.into ? ` · into \`${escapeWithin(context.into.replaceAll('`', "'"), PIECE_LIMIT.branch)}\`` : ''
}

/** A date Slack shows in each reader's time zone; the fallback is the UTC day, so the output is deterministic. */
function slackDate(iso: string): string {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) return escapeWithin(iso, 100)
  return `<!date^${Math.floor(ms / 1000)}^{date_short}|${new Date(ms).toISOString().slice(0, 10)}>`
}

/**
 * The headline: mentions, the ended label, and the link whose label carries the title, within one block. The
 * title is cut to what the rest leaves; mentions are kept whole (a cut token would be shown raw, and ping no
 * one), and only when so many are configured that the title would shrink below MIN_TITLE are trailing ones
 * left out. A URL no host sends (over PIECE_LIMIT.url) is left out rather than cut, since a cut link is a wrong one.
 */
function headline(lifecycle: StoredLifecycle, mentions: readonly string[], lead?: string): string {
  const { state, context } = lifecycle
  const ended = state === 'merged' || state === 'closed' ? ENDED_LABEL[state] : undefined
  const url = escapeLinkUrl(context.url)
  const linked = url.length <= PIECE_LIMIT.url
  const label = (title: string) => `${escapeText(referenceOf(context))}: ${ended ? `~${title}~` : title}`
  const compose = (kept: readonly string[], title: string) =>
    [...kept, ended, lead, linked ? `<${url}|${label(title)}>` : label(title)].filter((p) => p !== undefined && p !== '').join(' ')
  let kept = mentions.filter((m) => m !== '')
  const room = () => SLACK_LIMITS.blockText - compose(kept, '').length
  while (kept.length > 0 && room() < MIN_TITLE) kept = kept.slice(0, -1)
  // Strikethrough only renders when the tildes touch the text, hence the trim.
  return compose(kept, escapeWithin(context.title.trim(), Math.max(room(), 0)))
}

/**
 * The Block Kit message for a pull request: headline with mentions and link, context line, status line.
 * Pure. Mentions are Slack tokens (`<@U…>`, `<!subteam^…>`) and are passed through unescaped; so are the
 * people `people` maps (the author, reviewers, those waited on), the rest stay plain text. Every piece from
 * the git host is cut to fit Slack's sizes (SLACK_LIMITS), so the message always posts.
 */
export function renderMessage(input: { lifecycle: StoredLifecycle; mentions: readonly string[]; people?: People; options?: RenderOptions }): RenderedMessage {
  const message = renderPullRequest(input)
  // Said once, on the message itself, where talk-back turns thread replies into comments (docs/talk-back.md).
  const { context } = input.lifecycle
  const replies = input.options?.repliesGo?.(context.provider, `${context.owner}/${context.repo}`) ? [REPLIES_GO] : []
  // The review blocks (render-review.ts) go last, under whichever form the message takes.
  return { ...message, blocks: [...message.blocks, ...replies, ...reviewBlocks(input.lifecycle, input.options ?? NO_BUTTON)] }
}

const REPLIES_GO: SlackBlock = { type: 'context', elements: [{ type: 'mrkdwn', text: ':speech_balloon: Replies in this thread go to the pull request as comments.' }] }

function renderPullRequest(input: { lifecycle: StoredLifecycle; mentions: readonly string[]; people?: People }): RenderedMessage {
  const { context } = input.lifecycle
  if (context.dependencyBump?.compact) return renderBump(input.lifecycle, context.dependencyBump, input.mentions)
  const repository = escapeWithin(`${context.owner}/${context.repo}`, PIECE_LIMIT.repository)
  const author = authorMrkdwn(input.lifecycle, input.people)
  const status = escapeWithin(statusLine(input.lifecycle), SLACK_LIMITS.blockText)
  const title = escapeWithin(context.title.trim(), SLACK_LIMITS.blockText)
  // Each piece is within a block's size, so the fallback text stays far below SLACK_LIMITS.messageText.
  return {
    text: `${escapeText(referenceOf(context))}: ${title} (${repository}) — ${status}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: headline(input.lifecycle, input.mentions) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${repository} · ${author} · opened ${slackDate(context.createdAt)}${targetMrkdwn(context)}` }] },
      { type: 'section', text: { type: 'mrkdwn', text: statusMrkdwn(input.lifecycle, input.people) } },
    ],
  }
}

/**
 * A dependency bot's pull request on one line (`reviews.dependency_bots: compact`): the emoji and verb say
 * routine bump or security update, the link carries the title, and an end shows as in the full message
 * (`[Merged]`, strikethrough). A routine bump pings no one; a security update keeps the channel's mentions.
 */
function renderBump(lifecycle: StoredLifecycle, bump: DependencyBump, mentions: readonly string[]): RenderedMessage {
  const { context } = lifecycle
  const bot = escapeWithin(bump.bot, PIECE_LIMIT.author)
  const lead = bump.security ? `:rotating_light: ${bot} security update` : `:package: ${bot} bumped`
  const repository = escapeWithin(`${context.owner}/${context.repo}`, PIECE_LIMIT.repository)
  const status = escapeWithin(statusLine(lifecycle), SLACK_LIMITS.blockText)
  const title = escapeWithin(context.title.trim(), SLACK_LIMITS.blockText)
  return {
    text: `${bot} ${bump.security ? 'security update' : 'bumped'} ${escapeText(referenceOf(context))}: ${title} (${repository}) — ${status}`,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: headline(lifecycle, bump.security ? mentions : [], lead) } }],
  }
}
