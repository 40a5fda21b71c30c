import type { StoredLifecycle } from '../../machines/decide.ts'
import type { SlackMessage } from './slack-client.ts'

/** Slack requires these three escaped in text it should not interpret. */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

const LABEL = { merged: '[Merged]', closed: '[Closed]' } as const

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

/** A date Slack shows in each reader's time zone, with a fixed fallback so the output is deterministic. */
function slackDate(iso: string): string {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) return escapeText(iso)
  return `<!date^${Math.floor(ms / 1000)}^{date_short}|${new Date(ms).toISOString().slice(0, 10)}>`
}

/** The Block Kit message for a pull request: headline with mentions and link, context line, status line. Pure. */
export function renderMessage(input: { lifecycle: StoredLifecycle; mentions: readonly string[] }): SlackMessage {
  const { state, context } = input.lifecycle
  const title = escapeText(context.title)
  const ended = state === 'merged' || state === 'closed'
  const link = `<${context.url}|PR #${context.number}: ${ended ? `~${title}~` : title}>`
  const headline = [...input.mentions, ended ? LABEL[state] : undefined, link].filter(Boolean).join(' ')
  const repository = `${context.owner}/${context.repo}`
  const status = statusLine(input.lifecycle)
  return {
    text: `${ended ? `${LABEL[state]} ` : ''}PR #${context.number}: ${title} (${escapeText(repository)}) — ${escapeText(status)}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: headline } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${escapeText(repository)} · ${escapeText(context.author)} · opened ${slackDate(context.createdAt)}` }] },
      { type: 'section', text: { type: 'mrkdwn', text: escapeText(status) } },
    ],
  }
}
