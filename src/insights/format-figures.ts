import { escapeText } from '../slack/render-message.ts'
import type { Figures, Turnaround } from './turnaround-figures.ts'

/** Hours as people read them: minutes under an hour, one decimal up to two days, then days. */
export function formatHours(hours: number): string {
  if (hours < 1) return `${Math.round(hours * 60)} min`
  if (hours < 48) return `${(Math.round(hours * 10) / 10).toFixed(1)} h`
  return `${(Math.round((hours / 24) * 10) / 10).toFixed(1)} d`
}

/** `p50 2.0 h (18.0 h), p90 4.0 h (2.8 d)`: working time, calendar time in brackets. */
function formatTurnaround(t: Turnaround | undefined): string {
  if (!t) return '–'
  return `p50 ${formatHours(t.working.p50)} (${formatHours(t.calendar.p50)}), p90 ${formatHours(t.working.p90)} (${formatHours(t.calendar.p90)}), ${t.calendar.count} PR${t.calendar.count === 1 ? '' : 's'}`
}

/** How many reviewers the line names; the rest are counted. */
const REVIEWERS_SHOWN = 8

/** One group's figures as Slack mrkdwn lines (for /prherald stats, the App Home and the weekly summary). Pure. */
export function formatFigures(title: string, f: Figures): string[] {
  const reviewers = f.reviewsByPerson.slice(0, REVIEWERS_SHOWN).map((r) => `${escapeText(r.login)} ${r.reviews}`)
  if (f.reviewsByPerson.length > REVIEWERS_SHOWN) reviewers.push(`${f.reviewsByPerson.length - REVIEWERS_SHOWN} more`)
  return [
    `*${escapeText(title)}* — ${f.merged} merged`,
    `• first review: ${formatTurnaround(f.firstReview)}`,
    `• approval: ${formatTurnaround(f.approval)}`,
    `• merge: ${formatTurnaround(f.merge)}`,
    `• reviews: ${reviewers.length === 0 ? 'none' : reviewers.join(', ')}`,
  ]
}
