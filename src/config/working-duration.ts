import type { WorkingHours } from './working-hours.ts'

/**
 * A span of working time as `notify.reminders` and `/prherald snooze` write it: `Nd`, N working days (each as
 * long as the person's working hours), or `Nh`, N working hours. Pure.
 */
export interface WorkingDuration {
  amount: number
  unit: 'd' | 'h'
}

const DURATION = /^([1-9]\d{0,2})([dh])$/

export function parseWorkingDuration(text: string): WorkingDuration | undefined {
  const m = DURATION.exec(text.trim())
  return m ? { amount: Number(m[1]), unit: m[2] as 'd' | 'h' } : undefined
}

export const workingDurationProblem = (text: string): string | undefined =>
  parseWorkingDuration(text) ? undefined : `"${text}" is not a span of working time; write a whole number of working days or hours from 1 to 999, e.g. 1d or 4h`

const HOUR_MS = 3_600_000

/** The span in milliseconds of working time, for someone whose working day is `hours`. */
export function workingDurationMs(duration: WorkingDuration, hours: WorkingHours): number {
  return duration.unit === 'h' ? duration.amount * HOUR_MS : duration.amount * (hours.end - hours.start) * 60_000
}

/** `1 working day`, `3 working days`, `5 working hours`: working time in the person's whole days, else whole hours. */
export function workingTimeWords(ms: number, hours: WorkingHours): string {
  const dayMs = (hours.end - hours.start) * 60_000
  const days = Math.floor(ms / dayMs)
  if (days >= 1) return `${days} working ${days === 1 ? 'day' : 'days'}`
  const h = Math.max(1, Math.floor(ms / HOUR_MS))
  return `${h} working ${h === 1 ? 'hour' : 'hours'}`
}
