import '../src/cli/require-supported-node.ts'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseWorkingHours } from '../src/config/working-hours.ts'
import { renderChart } from '../src/insights/render-chart.ts'
import { weeklySummary } from '../src/insights/weekly-summary.ts'
import { packageRoot } from '../src/package-root.ts'
import type { TurnaroundRecord } from '../src/store/turnaround-store.ts'

/**
 * `npm run docs:weekly-chart`: renders docs/images/weekly-chart.png, the weekly summary's chart shown in
 * docs/review-loop.md, with prherald's own code from the fixed history below (five weeks of a team's pull
 * requests, as of Monday 7 December 2026 09:30 UTC), and prints the summary's text.
 */
const HOUR = 3_600_000
// Each pull request: when it became ready, then hours to its first review and to its merge (calendar).
const HISTORY: Array<[ready: string, review: number, merge: number, reviewer: string]> = [
  ['2026-11-02T10:00Z', 3, 26, 'carol'], ['2026-11-03T14:00Z', 20, 48, 'dave'], ['2026-11-05T09:00Z', 6, 30, 'erin'],
  ['2026-11-09T11:00Z', 2, 24, 'carol'], ['2026-11-10T09:30Z', 5, 28, 'dave'], ['2026-11-11T15:00Z', 18, 44, 'carol'], ['2026-11-12T10:00Z', 1, 5, 'erin'],
  ['2026-11-16T09:00Z', 26, 74, 'dave'], ['2026-11-18T13:00Z', 22, 50, 'erin'],
  ['2026-11-23T10:00Z', 4, 22, 'carol'], ['2026-11-24T09:00Z', 2, 7, 'dave'], ['2026-11-25T11:00Z', 3, 26, 'erin'], ['2026-11-26T14:00Z', 19, 27, 'carol'],
  ['2026-11-30T10:00Z', 1, 6, 'dave'], ['2026-12-01T09:00Z', 2, 24, 'carol'], ['2026-12-02T13:00Z', 3, 21, 'erin'], ['2026-12-03T10:00Z', 1, 4, 'dave'], ['2026-12-04T09:00Z', 2, 7, 'carol'],
]
const rows: TurnaroundRecord[] = HISTORY.map(([ready, review, merge, reviewer], i) => {
  const start = Date.parse(ready)
  return {
    provider: 'github', repository: 'acme/api', prNumber: 100 + i, entry: 'acme/api', author: 'bob', openedAt: start, readyAt: start,
    firstReviewAt: start + review * HOUR, firstApprovalAt: start + review * HOUR, mergedAt: start + merge * HOUR, closedAt: start + merge * HOUR,
    mergedBy: 'bob', reviews: [{ login: reviewer, at: start + review * HOUR }], teams: [],
  }
})
const summary = weeklySummary(rows, Date.parse('2026-12-07T09:30Z'), { timeZone: 'UTC', hours: parseWorkingHours('08:00-19:00')! }, '08:00-19:00 UTC')
const file = join(packageRoot(), 'docs/images/weekly-chart.png')
mkdirSync(join(packageRoot(), 'docs/images'), { recursive: true })
writeFileSync(file, await renderChart(summary.weeks))
console.log(summary.text)
console.log(`\ndocs/images/weekly-chart.png written`)
