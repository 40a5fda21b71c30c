import type { StoredLifecycle } from '../../machines/decide.ts'

/** The two Block Kit blocks the message uses; enough for chat.postMessage / chat.update. */
export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }

export interface RenderedMessage {
  /** Plain fallback, shown in notifications and by clients that cannot draw blocks. */
  text: string
  blocks: SlackBlock[]
}

/** Slack reads `&`, `<` and `>` as control characters in mrkdwn, so text from the git host must escape them. */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

const ENDED_LABEL = { merged: '[Merged]', closed: '[Closed]' } as const

/** Where the pull request stands, e.g. `Approved by a, b · Changes requested by c · 2 comments`. Unescaped. */
export function statusLine(lifecycle: StoredLifecycle): string {
  const { state, context } = lifecycle
  const parts: string[] = []
  if (state === 'draft') parts.push('Draft')
  if (state === 'merged') parts.push('Merged')
  if (state === 'closed') parts.push('Closed')
  if (context.approvedBy.length > 0) parts.push(`Approved by ${context.approvedBy.join(', ')}`)
  if (context.changesRequestedBy.length > 0) parts.push(`Changes requested by ${context.changesRequestedBy.join(', ')}`)
  if (context.commentCount > 0) parts.push(`${context.commentCount} ${context.commentCount === 1 ? 'comment' : 'comments'}`)
  return parts.length > 0 ? parts.join(' · ') : 'Open'
}

/** A date Slack shows in each reader's time zone; the fallback is the UTC day, so the output is deterministic. */
function slackDate(iso: string): string {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) return escapeText(iso)
  return `<!date^${Math.floor(ms / 1000)}^{date_short}|${new Date(ms).toISOString().slice(0, 10)}>`
}

/**
 * The Block Kit message for a pull request: headline with mentions and link, context line, status line.
 * Pure. Mentions are Slack tokens (`<@U…>`, `<!subteam^…>`) and are passed through unescaped.
 */
export function renderMessage(input: { lifecycle: StoredLifecycle; mentions: readonly string[] }): RenderedMessage {
  const { state, context } = input.lifecycle
  const ended = state === 'merged' || state === 'closed' ? ENDED_LABEL[state] : undefined
  const title = escapeText(context.title.trim())
  // Strikethrough only renders when the tildes touch the text, hence the trim above.
  const shownTitle = ended ? `~${title}~` : title
  const link = `<${escapeText(context.url)}|PR #${context.number}: ${shownTitle}>`
  const headline = [...input.mentions, ended, link].filter((part) => part !== undefined && part !== '').join(' ')
  const repository = escapeText(`${context.owner}/${context.repo}`)
  const status = escapeText(statusLine(input.lifecycle))
  return {
    text: `PR #${context.number}: ${title} (${repository}) — ${status}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: headline } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${repository} · ${escapeText(context.author)} · opened ${slackDate(context.createdAt)}` }] },
      { type: 'section', text: { type: 'mrkdwn', text: status } },
    ],
  }
}
