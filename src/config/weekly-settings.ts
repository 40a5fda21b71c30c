import type { ConfigProblem } from './config-problems.ts'
import type { ConfigDocument } from './schema.ts'
import type { WeeklySetting } from './settings.ts'

/** The time of day a weekly summary is posted when its entry names none. */
export const DEFAULT_WEEKLY_AT = '09:30'

/** `insights.weekly` as a list, one entry or several, each with its time. */
export function weeklySettings(doc: Pick<ConfigDocument, 'insights'>): WeeklySetting[] {
  const weekly = doc.insights?.weekly
  const entries = weekly === undefined ? [] : Array.isArray(weekly) ? weekly : [weekly]
  return entries.map((e) => ({ channel: e.channel, day: e.day, at: e.at ?? DEFAULT_WEEKLY_AT }))
}

/**
 * Rules across `insights.weekly`'s entries: a channel gets one summary a week, so it is named once; and the
 * summary is made of the turnaround figures, which only `insights.enabled: true` keeps.
 */
export function weeklyProblems(doc: Pick<ConfigDocument, 'insights'>): ConfigProblem[] {
  const weekly = doc.insights?.weekly
  if (weekly === undefined) return []
  const problems: ConfigProblem[] = []
  if (doc.insights?.enabled !== true) {
    problems.push({
      key: 'insights.weekly', path: ['insights', 'weekly'],
      message: 'needs the turnaround figures; set insights.enabled: true (or remove insights.weekly)',
    })
  }
  if (!Array.isArray(weekly)) return problems
  const seen = new Set<string>()
  weekly.forEach((entry, i) => {
    if (!seen.has(entry.channel)) return void seen.add(entry.channel)
    problems.push({
      key: `insights.weekly.${i}.channel`, path: ['insights', 'weekly', i, 'channel'],
      message: `${entry.channel} is named twice; a channel gets one weekly summary, so keep one of its entries`,
    })
  })
  return problems
}
