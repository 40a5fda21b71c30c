import { holidayTest, parseHolidayCalendar } from '../config/digest-calendar.ts'
import type { Settings } from '../config/settings.ts'
import { parseWorkingHours } from '../config/working-hours.ts'
import type { TurnaroundStore } from '../store/turnaround-store.ts'
import { formatFigures } from './format-figures.ts'
import { figuresBy, turnaroundFigures, type WorkingClock } from './turnaround-figures.ts'

const WEEK_MS = 7 * 24 * 60 * 60 * 1000
/** The most weeks `/prherald stats --weeks` reaches back: a year, within the default `insights.keep_days`. */
export const MAX_WEEKS = 52

export const STATS_USAGE = 'Write `/prherald stats`, `/prherald stats acme/api` or `/prherald stats <team>`, optionally with `--weeks N` (1 to 52).'

/**
 * The working clock of the figures: `notify.working_hours` in `notify.time_zone`, Monday to Friday, less the
 * `digest.holidays` calendar's holidays (the holiday tables load on the first figure, not at start).
 */
export function workingClockOf(settings: Pick<Settings, 'directMessages' | 'digest'>): () => WorkingClock {
  let clock: WorkingClock | undefined
  return () => (clock ??= {
    timeZone: settings.directMessages.timeZone,
    hours: parseWorkingHours(settings.directMessages.workingHours)!,
    ...(settings.digest.holidays ? { isHoliday: holidayTest(parseHolidayCalendar(settings.digest.holidays)) } : {}),
  })
}

/** `[target] [--weeks N]` read, or the reason it cannot be. */
function parseStats(argument: string): { target: string | undefined; weeks: number } | string {
  const words = argument.split(/\s+/).filter(Boolean)
  let weeks = 1
  const at = words.indexOf('--weeks')
  if (at >= 0) {
    const n = Number(words[at + 1])
    if (!Number.isInteger(n) || n < 1 || n > MAX_WEEKS) return `"${words[at + 1] ?? ''}" is not a number of weeks. ${STATS_USAGE}`
    weeks = n
    words.splice(at, 2)
  }
  if (words.length > 1) return `One repository or team at a time. ${STATS_USAGE}`
  return { target: words[0], weeks }
}

/**
 * Turnaround figures as people ask for them (docs/review-loop.md): `/prherald stats` and the App Home's "your team
 * this week", read from the turnaround rows of the window.
 */
export function createStatsReport(deps: {
  store: TurnaroundStore
  clock: () => WorkingClock
  /** How the header names the working hours, e.g. `08:00-19:00 UTC`. */
  hours: string
}) {
  const header = (weeks: number) =>
    `Turnaround over the last ${weeks === 1 ? 'week' : `${weeks} weeks`}: working hours (${deps.hours}, weekdays), calendar time in brackets.`

  return {
    /** The answer to `/prherald stats <argument>`. */
    async stats(argument: string, now: number): Promise<string> {
      const parsed = parseStats(argument)
      if (typeof parsed === 'string') return parsed
      const window = { from: now - parsed.weeks * WEEK_MS, to: now }
      const rows = await deps.store.turnaroundSince(window.from)
      const clock = deps.clock()
      const { target } = parsed
      if (target === undefined) {
        const lines = [header(parsed.weeks), ...formatFigures('Every repository', turnaroundFigures(rows, window, clock))]
        for (const { group, figures } of figuresBy(rows, 'repository', window, clock)) lines.push(...formatFigures(group, figures))
        return lines.join('\n')
      }
      const wanted = target.toLowerCase()
      const byRepository = rows.filter((r) => r.repository.toLowerCase() === wanted)
      const byTeam = rows.filter((r) => r.teams.some((t) => t.toLowerCase() === wanted))
      const chosen = byRepository.length > 0 ? byRepository : byTeam
      if (chosen.length === 0) return `Nothing about "${target}" in the last ${parsed.weeks === 1 ? 'week' : `${parsed.weeks} weeks`}: give a repository (owner/repo) or a team of \`teams:\`.`
      return [header(parsed.weeks), ...formatFigures(target, turnaroundFigures(chosen, window, clock))].join('\n')
    },

    /** The App Home's "your team this week": the figures of each of these teams over the last seven days. */
    async teamWeek(teams: readonly string[], now: number): Promise<string | undefined> {
      if (teams.length === 0) return undefined
      const window = { from: now - WEEK_MS, to: now }
      const rows = await deps.store.turnaroundSince(window.from)
      const lines = ['*Your team this week*']
      for (const team of teams) lines.push(...formatFigures(team, turnaroundFigures(rows.filter((r) => r.teams.includes(team)), window, deps.clock())))
      return lines.join('\n')
    },
  }
}

export type StatsReport = ReturnType<typeof createStatsReport>
