import type { TurnaroundRecord } from '../../src/store/turnaround-store.ts'

/**
 * A fixed turnaround history for the weekly summary's tests, worked out by hand with the default working hours
 * (08:00-19:00 UTC, weekdays), as of WEEKLY_AT (Monday 7 December 2026, 09:30 UTC):
 *
 * This week (Mon Nov 30 09:30 to Mon Dec 7 09:30):
 * - #1 ready Tue Dec 1 10:00, reviewed 12:00 (2 h), merged Wed Dec 2 10:00 (Tue 9 h + Wed 2 h = 11 h; 24 h calendar)
 * - #2 ready Thu Dec 3 09:00, reviewed 13:00 (4 h), merged Fri Dec 4 11:00 (Thu 10 h + Fri 3 h = 13 h; 26 h calendar)
 *   first review p50 2.0 h, p90 4.0 h; merge p50 11.0 h (24.0 h), p90 13.0 h (26.0 h); 2 merged
 * The four weeks before:
 * - #3 ready Tue Nov 24 10:00, reviewed 16:00 (6 h), merged Wed Nov 25 12:00 (9 h + 4 h = 13 h)
 * - #4 ready Tue Nov 10 10:00, reviewed Wed Nov 11 10:00 (9 h + 2 h = 11 h), merged Thu Nov 12 10:00 (9 + 11 + 2 = 22 h)
 *   first review p50 6.0 h; merge p50 13.0 h; 2 merged, 0.5 a week
 */
export const WEEKLY_AT = Date.UTC(2026, 11, 7, 9, 30)

/** The summary's text for WEEKLY_HISTORY as of WEEKLY_AT, line by line. */
export const WEEKLY_TEXT = [
  '*Weekly review summary*: the week to Mon 7 Dec, working hours (08:00-19:00 UTC, weekdays), calendar time in brackets.',
  '*This week* — 2 merged',
  '• first review: p50 2.0 h (2.0 h), p90 4.0 h (4.0 h), 2 PRs',
  '• approval: –',
  '• merge: p50 11.0 h (24.0 h), p90 13.0 h (26.0 h), 2 PRs',
  '• reviews: carol 1, dave 1',
  'Against the 4 weeks before: first review p50 2.0 h (was 6.0 h), merge p50 11.0 h (was 13.0 h), 2 merged (was 0.5 a week).',
]

const at = (month: number, day: number, hour: number) => Date.UTC(2026, month, day, hour)

function pullRequest(n: number, ready: number, reviewed: number, merged: number, reviewer: string): TurnaroundRecord {
  return {
    provider: 'github', repository: 'acme/api', prNumber: n, entry: 'acme/api', author: 'bob', openedAt: ready, readyAt: ready,
    firstReviewAt: reviewed, firstApprovalAt: null, mergedAt: merged, closedAt: merged, mergedBy: 'bob', reviews: [{ login: reviewer, at: reviewed }], teams: [],
  }
}

export const WEEKLY_HISTORY: readonly TurnaroundRecord[] = [
  pullRequest(1, at(11, 1, 10), at(11, 1, 12), at(11, 2, 10), 'carol'),
  pullRequest(2, at(11, 3, 9), at(11, 3, 13), at(11, 4, 11), 'dave'),
  pullRequest(3, at(10, 24, 10), at(10, 24, 16), at(10, 25, 12), 'carol'),
  pullRequest(4, at(10, 10, 10), at(10, 11, 10), at(10, 12, 10), 'erin'),
]
