import { describe, expect, it } from 'vitest'
import { holidayTest, parseHolidayCalendar } from '../../src/config/digest-calendar.ts'
import { parseWorkingHours, workingMillisBetween } from '../../src/config/working-hours.ts'
import { figuresBy, percentile, turnaroundFigures, type WorkingClock } from '../../src/insights/turnaround-figures.ts'
import type { TurnaroundRecord } from '../../src/store/turnaround-store.ts'

const HOUR = 3_600_000
const at = (iso: string) => Date.parse(iso)
const clock: WorkingClock = { timeZone: 'UTC', hours: parseWorkingHours('09:00-17:00')! }

function row(number: number, facts: Partial<TurnaroundRecord>): TurnaroundRecord {
  return {
    provider: 'github', repository: 'acme/api', prNumber: number, entry: 'acme/api', author: 'bob', openedAt: null, readyAt: null,
    firstReviewAt: null, firstApprovalAt: null, mergedAt: null, closedAt: null, mergedBy: null, reviews: [], teams: [], ...facts,
  }
}

describe('working time between two instants', () => {
  it('counts only the working hours of weekdays: Friday 15:00 to Monday 11:00 is 2 h + 2 h', () => {
    // 2026-12-04 is a Friday.
    expect(workingMillisBetween(at('2026-12-04T15:00Z'), at('2026-12-07T11:00Z'), 'UTC', clock.hours) / HOUR).toBe(4)
  })

  it('starts and ends outside the hours: Saturday noon to Monday 08:00 is nothing, to Monday 17:30 a full day', () => {
    expect(workingMillisBetween(at('2026-12-05T12:00Z'), at('2026-12-07T08:00Z'), 'UTC', clock.hours)).toBe(0)
    expect(workingMillisBetween(at('2026-12-05T12:00Z'), at('2026-12-07T17:30Z'), 'UTC', clock.hours) / HOUR).toBe(8)
  })

  it('reads the hours in the time zone and leaves out holidays: Christmas Eve 16:00 to the Monday after, Berlin, is 1 h + 1 h', () => {
    const from = at('2026-12-24T15:00Z') // Thursday 16:00 in Berlin (UTC+1)
    const to = at('2026-12-28T09:00Z') // Monday 10:00 in Berlin
    const germany = holidayTest(parseHolidayCalendar('DE'))
    expect(workingMillisBetween(from, to, 'Europe/Berlin', clock.hours, germany) / HOUR).toBe(2)
    // Without the calendar the 25th, a Friday, counts whole.
    expect(workingMillisBetween(from, to, 'Europe/Berlin', clock.hours) / HOUR).toBe(10)
  })
})

describe('turnaround figures', () => {
  // Worked out by hand (09:00-17:00 UTC, Monday to Friday):
  //   #1 ready Fri 4 Dec 15:00, first review Mon 7 Dec 11:00: 68 h calendar, 2 h + 2 h = 4 h working
  //   #2 ready Mon 7 Dec 09:30, first review 10:00: 0.5 h both
  //   #3 opened (no ready) Tue 8 Dec 16:00, first review Wed 9 Dec 10:00: 18 h calendar, 1 h + 1 h = 2 h working
  //   #4 first review Mon 30 Nov, outside the week: not counted
  const rows = [
    row(1, { openedAt: at('2026-12-04T10:00Z'), readyAt: at('2026-12-04T15:00Z'), firstReviewAt: at('2026-12-07T11:00Z'), firstApprovalAt: at('2026-12-07T11:00Z'), mergedAt: at('2026-12-07T13:00Z'), mergedBy: 'bob', reviews: [{ login: 'carol', at: at('2026-12-07T11:00Z') }] }),
    row(2, { openedAt: at('2026-12-07T09:30Z'), readyAt: at('2026-12-07T09:30Z'), firstReviewAt: at('2026-12-07T10:00Z'), reviews: [{ login: 'dave', at: at('2026-12-07T10:00Z') }, { login: 'carol', at: at('2026-12-07T12:00Z') }] }),
    row(3, { openedAt: at('2026-12-08T16:00Z'), firstReviewAt: at('2026-12-09T10:00Z'), teams: ['backend'], reviews: [{ login: 'carol', at: at('2026-12-09T10:00Z') }] }),
    row(4, { repository: 'acme/web', entry: 'acme/*', openedAt: at('2026-11-30T09:00Z'), firstReviewAt: at('2026-11-30T10:00Z'), teams: ['backend'], reviews: [{ login: 'erin', at: at('2026-11-30T10:00Z') }] }),
  ]
  const week = { from: at('2026-12-07T00:00Z'), to: at('2026-12-14T00:00Z') }

  it('gives p50 and p90 of time to first review in working and calendar hours, nearest rank', () => {
    const figures = turnaroundFigures(rows, week, clock)
    // Working: 0.5, 2, 4 -> p50 the 2nd (2), p90 the 3rd (4). Calendar: 0.5, 18, 68.
    expect(figures.firstReview).toEqual({ working: { count: 3, p50: 2, p90: 4 }, calendar: { count: 3, p50: 18, p90: 68 } })
    // #1 only: approved Monday 11:00 (4 h working, 68 h calendar), merged 13:00 (6 h working, 70 h calendar).
    expect(figures.approval).toEqual({ working: { count: 1, p50: 4, p90: 4 }, calendar: { count: 1, p50: 68, p90: 68 } })
    expect(figures.merge).toEqual({ working: { count: 1, p50: 6, p90: 6 }, calendar: { count: 1, p50: 70, p90: 70 } })
    expect(figures.merged).toBe(1)
    expect(figures.reviewsByPerson).toEqual([{ login: 'carol', reviews: 3 }, { login: 'dave', reviews: 1 }])
  })

  it('groups by repository, mapping entry and team', () => {
    const wide = { from: at('2026-11-30T00:00Z'), to: week.to }
    expect(figuresBy(rows, 'repository', wide, clock).map((g) => [g.group, g.figures.firstReview?.calendar.count])).toEqual([['acme/api', 3], ['acme/web', 1]])
    expect(figuresBy(rows, 'entry', wide, clock).map((g) => g.group)).toEqual(['acme/*', 'acme/api'])
    const backend = figuresBy(rows, 'team', wide, clock)
    expect(backend.map((g) => g.group)).toEqual(['backend'])
    // #3 (2 h working) and #4 (1 h, Monday 09:00-10:00).
    expect(backend[0]!.figures.firstReview?.working).toEqual({ count: 2, p50: 1, p90: 2 })
  })

  it('has no figure where nothing happened in the window', () => {
    const figures = turnaroundFigures(rows, { from: at('2027-01-04T00:00Z'), to: at('2027-01-11T00:00Z') }, clock)
    expect(figures).toEqual({ firstReview: undefined, approval: undefined, merge: undefined, merged: 0, reviewsByPerson: [] })
  })

  it('percentile is nearest rank', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2)
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9)
    expect(percentile([7], 90)).toBe(7)
  })
})
