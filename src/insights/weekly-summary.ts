import type { TurnaroundRecord } from '../store/turnaround-store.ts'
import { formatFigures, formatHours } from './format-figures.ts'
import type { ChartWeek } from './render-chart.ts'
import { turnaroundFigures, type Figures, type Turnaround, type WorkingClock } from './turnaround-figures.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const WEEK_MS = 7 * DAY_MS
/** The weeks the summary compares this week with. */
export const PREVIOUS_WEEKS = 4

/** What one weekly post says: its text (Slack mrkdwn) and its chart's weeks, oldest first, this week last. */
export interface WeeklySummary {
  text: string
  weeks: ChartWeek[]
}

/**
 * The ISO week (`2026-W49`) that `at` falls in, in `timeZone`: the period a weekly post is claimed for, so that
 * a channel gets one post a week whichever day and time it is set to.
 */
export function isoWeekOf(at: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at)
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  const date = new Date(Date.UTC(part('year'), part('month') - 1, part('day')))
  // ISO 8601: the week with January 4 is week 1; a week belongs to the year of its Thursday.
  const weekday = (date.getUTCDay() + 6) % 7
  const thursday = new Date(date.getTime() + (3 - weekday) * DAY_MS)
  const january4 = new Date(Date.UTC(thursday.getUTCFullYear(), 0, 4))
  const week = 1 + Math.round(((thursday.getTime() - january4.getTime()) / DAY_MS - 3 + ((january4.getUTCDay() + 6) % 7)) / 7)
  return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`
}

const p50 = (t: Turnaround | undefined): number | null => (t ? Math.round(t.working.p50 * 10) / 10 : null)

/** `1.5 h (was 3.1 h)`: this week's p50 in working time against the earlier one. */
function against(now: Turnaround | undefined, before: Turnaround | undefined): string {
  const was = before ? formatHours(before.working.p50) : '–'
  return `${now ? formatHours(now.working.p50) : '–'} (was ${was})`
}

/**
 * The weekly summary as of `at`: the figures of the seven days before it against those of the four weeks before
 * them, and the chart's five weeks (p50 of time to first review and to merge in working hours, merged), each
 * week the seven days ending where the next begins. Pure: the rows are those changed since five weeks before
 * `at`; `hours` names the working hours in the header, e.g. `08:00-19:00 UTC`.
 */
export function weeklySummary(rows: readonly TurnaroundRecord[], at: number, clock: WorkingClock, hours: string): WeeklySummary {
  const windowOf = (weeksBack: number) => ({ from: at - (weeksBack + 1) * WEEK_MS, to: at - weeksBack * WEEK_MS })
  const label = new Intl.DateTimeFormat('en-US', { timeZone: clock.timeZone, month: 'short', day: 'numeric' })
  const weeks: ChartWeek[] = []
  const byWeek: Figures[] = []
  for (let back = PREVIOUS_WEEKS; back >= 0; back--) {
    const window = windowOf(back)
    const figures = turnaroundFigures(rows, window, clock)
    byWeek.push(figures)
    weeks.push({ label: label.format(window.from), firstReview: p50(figures.firstReview), merge: p50(figures.merge), merged: figures.merged })
  }
  const thisWeek = byWeek.at(-1)!
  const before = turnaroundFigures(rows, { from: at - (PREVIOUS_WEEKS + 1) * WEEK_MS, to: at - WEEK_MS }, clock)
  const perWeek = Math.round((before.merged / PREVIOUS_WEEKS) * 10) / 10
  const text = [
    `*Weekly review summary*: the week to ${new Intl.DateTimeFormat('en-GB', { timeZone: clock.timeZone, weekday: 'short', day: 'numeric', month: 'short' }).format(at)}, working hours (${hours}, weekdays), calendar time in brackets.`,
    ...formatFigures('This week', thisWeek),
    `Against the ${PREVIOUS_WEEKS} weeks before: first review p50 ${against(thisWeek.firstReview, before.firstReview)}, merge p50 ${against(thisWeek.merge, before.merge)}, ${thisWeek.merged} merged (was ${perWeek} a week).`,
  ].join('\n')
  return { text, weeks }
}
