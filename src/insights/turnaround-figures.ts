import { workingMillisBetween, type WorkingHours } from '../config/working-hours.ts'
import type { TurnaroundRecord } from '../store/turnaround-store.ts'

const HOUR_MS = 60 * 60 * 1000

/** What working hours mean for the figures: the team's hours in one time zone, weekends and holidays left out. */
export interface WorkingClock {
  timeZone: string
  hours: WorkingHours
  /** A local date (`YYYY-MM-DD`) that is a holiday; absent: weekends only. */
  isHoliday?: (date: string) => boolean
}

/** The middle and the slow end of a set of durations, in hours. */
export interface Spread {
  count: number
  p50: number
  p90: number
}

/** One duration measured both ways. */
export interface Turnaround {
  working: Spread
  calendar: Spread
}

export interface Figures {
  /** From ready for review (or opened) to the first review by someone else, for first reviews in the window. */
  firstReview: Turnaround | undefined
  /** From ready to the first approval, for first approvals in the window. */
  approval: Turnaround | undefined
  /** From ready to the merge, for merges in the window. */
  merge: Turnaround | undefined
  /** Pull requests merged in the window. */
  merged: number
  /** Reviews done in the window, per person (most first, then by name). */
  reviewsByPerson: Array<{ login: string; reviews: number }>
}

/** A half-open span of time, [from, to), unix ms. */
export interface Window {
  from: number
  to: number
}

/**
 * The nearest-rank percentile of sorted values: the smallest value with at least `p` per cent of them at or
 * below it (p50 of 1, 2, 3, 4 is 2). No interpolation: every figure is a duration some pull request really took.
 */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}

function spread(hours: number[]): Spread {
  const sorted = [...hours].sort((a, b) => a - b)
  return { count: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90) }
}

const inWindow = (at: number | null, w: Window): at is number => at !== null && at >= w.from && at < w.to

/** The time a pull request started to wait for review: when it became ready, else when it was opened. */
const startOf = (row: TurnaroundRecord): number | null => row.readyAt ?? row.openedAt

function durations(rows: readonly TurnaroundRecord[], end: (row: TurnaroundRecord) => number | null, w: Window, clock: WorkingClock): Turnaround | undefined {
  const working: number[] = []
  const calendar: number[] = []
  for (const row of rows) {
    const to = end(row)
    const from = startOf(row)
    if (!inWindow(to, w) || from === null) continue
    // A review of a draft before it was marked ready took no waiting: zero, not negative.
    const start = Math.min(from, to)
    calendar.push((to - start) / HOUR_MS)
    working.push(workingMillisBetween(start, to, clock.timeZone, clock.hours, clock.isHoliday) / HOUR_MS)
  }
  return calendar.length === 0 ? undefined : { working: spread(working), calendar: spread(calendar) }
}

/** The turnaround figures of some pull requests' rows over a window (docs/review-loop.md, "How each figure is computed"). Pure. */
export function turnaroundFigures(rows: readonly TurnaroundRecord[], w: Window, clock: WorkingClock): Figures {
  const reviews = new Map<string, number>()
  for (const row of rows) for (const r of row.reviews) if (inWindow(r.at, w)) reviews.set(r.login, (reviews.get(r.login) ?? 0) + 1)
  return {
    firstReview: durations(rows, (r) => r.firstReviewAt, w, clock),
    approval: durations(rows, (r) => r.firstApprovalAt, w, clock),
    merge: durations(rows, (r) => r.mergedAt, w, clock),
    merged: rows.filter((r) => inWindow(r.mergedAt, w)).length,
    reviewsByPerson: [...reviews].map(([login, n]) => ({ login, reviews: n })).sort((a, b) => b.reviews - a.reviews || a.login.localeCompare(b.login)),
  }
}

/** How rows are grouped: by repository, by the mapping entry that routed them, by each team asked to review. */
export type FigureGroup = 'repository' | 'entry' | 'team'

const groupsOf = (row: TurnaroundRecord, by: FigureGroup): string[] =>
  by === 'repository' ? [row.repository] : by === 'entry' ? (row.entry === null ? [] : [row.entry]) : row.teams

/** The figures per group (a row asked of two teams counts for both), groups in name order. Pure. */
export function figuresBy(rows: readonly TurnaroundRecord[], by: FigureGroup, w: Window, clock: WorkingClock): Array<{ group: string; figures: Figures }> {
  const grouped = new Map<string, TurnaroundRecord[]>()
  for (const row of rows) for (const g of groupsOf(row, by)) grouped.set(g, [...(grouped.get(g) ?? []), row])
  return [...grouped.keys()].sort().map((group) => ({ group, figures: turnaroundFigures(grouped.get(group)!, w, clock) }))
}
