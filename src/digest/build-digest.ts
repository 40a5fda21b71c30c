import type { StoredLifecycle } from '../../machines/decide.ts'
import { referenceOf } from '../../machines/pull-request-event.ts'
import { escapeLinkUrl, escapeText, type RenderedMessage } from '../slack/render-message.ts'

/** One stored message of a pull request, as the digest sees it. */
export interface DigestCandidate {
  channel: string
  lifecycle: StoredLifecycle
  /** Unix ms of the pull request's last activity: its announcement, a review or a comment. */
  activityAt: number
}

export interface DigestInput {
  candidates: readonly DigestCandidate[]
  /** The first instant of the digest's day: a pull request whose last activity is before it is stuck. */
  startOfDay: number
  now: number
  /** Logins whose pull requests are left out (dependency bots), compared case-insensitively. */
  leaveOut: readonly string[]
}

/** A channel's digest: one parent message and the replies in its thread that list the pull requests. */
export interface ChannelDigest {
  channel: string
  count: number
  parent: RenderedMessage
  replies: RenderedMessage[]
}

/** Slack's limit for a section block's text; a reply holds as many whole lines as fit. */
const SECTION_LIMIT = 3000
const TITLE_LIMIT = 150
const DAY_MS = 24 * 60 * 60 * 1000

/** Stuck: open (not a draft, not ended), announced, and quiet since before the start of the day. */
export function isStuck(candidate: DigestCandidate, startOfDay: number, leaveOut: readonly string[]): boolean {
  const { state, context } = candidate.lifecycle
  if (state !== 'open') return false
  if (leaveOut.some((login) => login.toLowerCase() === context.author.toLowerCase())) return false
  return candidate.activityAt < startOfDay
}

export function waitsOn(lifecycle: StoredLifecycle): string {
  const { approvedBy, changesRequestedBy } = lifecycle.context
  if (changesRequestedBy.length > 0) return `changes requested by ${changesRequestedBy.join(', ')}`
  if (approvedBy.length > 0) return `approved by ${approvedBy.join(', ')}, not merged`
  return 'waiting on review'
}

function age(createdAt: string, now: number): string {
  const created = Date.parse(createdAt)
  if (Number.isNaN(created)) return 'age unknown'
  const days = Math.floor((now - created) / DAY_MS)
  return days < 1 ? 'opened today' : `${days} day${days === 1 ? '' : 's'} old`
}

const cut = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`)

/** One line of the digest, e.g. `• <url|PR #7: Add limits> · acme/api · bob · 3 days old · waiting on review`. */
export function digestLine(candidate: DigestCandidate, now: number): string {
  const { context } = candidate.lifecycle
  const link = `<${escapeLinkUrl(context.url)}|${escapeText(referenceOf(context))}: ${escapeText(cut(context.title.trim(), TITLE_LIMIT))}>`
  const facts = [`${context.owner}/${context.repo}`, context.author, age(context.createdAt, now), waitsOn(candidate.lifecycle)]
  return `• ${link} · ${escapeText(facts.join(' · '))}`
}

/** Lines packed into as few section texts as Slack's limit allows, never splitting a line. */
function pack(lines: readonly string[]): string[] {
  const chunks: string[] = []
  let current = ''
  for (const line of lines) {
    const joined = current === '' ? line : `${current}\n${line}`
    if (joined.length <= SECTION_LIMIT) current = joined
    else {
      if (current !== '') chunks.push(current)
      current = line.slice(0, SECTION_LIMIT)
    }
  }
  if (current !== '') chunks.push(current)
  return chunks
}

const section = (text: string): RenderedMessage => ({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] })

/**
 * The digest of every channel that has stuck pull requests, oldest first; channels with none are left out.
 * Pure: the caller chooses the candidates (the repositories of one schedule) and posts the result.
 */
export function buildDigests(input: DigestInput, mentionsOf: (channel: string) => readonly string[]): ChannelDigest[] {
  const byChannel = new Map<string, DigestCandidate[]>()
  for (const candidate of input.candidates) {
    if (!isStuck(candidate, input.startOfDay, input.leaveOut)) continue
    byChannel.set(candidate.channel, [...(byChannel.get(candidate.channel) ?? []), candidate])
  }
  return [...byChannel].map(([channel, stuck]) => {
    const sorted = [...stuck].sort((a, b) => Date.parse(a.lifecycle.context.createdAt) - Date.parse(b.lifecycle.context.createdAt)
      || a.lifecycle.context.number - b.lifecycle.context.number)
    const count = sorted.length
    const headline = `${count} pull request${count === 1 ? '' : 's'} waiting since before today; the list is in the thread.`
    const parent = section([...mentionsOf(channel), headline].join(' '))
    return { channel, count, parent, replies: pack(sorted.map((c) => digestLine(c, input.now))).map(section) }
  })
}
