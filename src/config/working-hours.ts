/**
 * Working hours (`notify.working_hours`, a person's own, `/prherald hours`): `HH:MM-HH:MM`, Monday to Friday, in
 * the person's time zone. A direct message due outside them is held until the next start. Pure.
 */
export interface WorkingHours {
  /** Minutes after local midnight. */
  start: number
  end: number
}

export const DEFAULT_WORKING_HOURS = '08:00-19:00'

const HOURS = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]|24):([0-5]\d)$/

export function parseWorkingHours(text: string): WorkingHours | undefined {
  const m = HOURS.exec(text.trim())
  if (!m) return undefined
  const start = Number(m[1]) * 60 + Number(m[2])
  const end = Number(m[3]) * 60 + Number(m[4])
  return start < end && end <= 24 * 60 ? { start, end } : undefined
}

export const workingHoursProblem = (text: string): string | undefined =>
  parseWorkingHours(text) ? undefined : `"${text}" is not a span of working hours; write HH:MM-HH:MM with the start before the end, e.g. 09:00-18:00`

interface LocalTime { year: number; month: number; day: number; weekday: number; minutes: number }

const formatters = new Map<string, Intl.DateTimeFormat>()
function localTime(ms: number, timeZone: string): LocalTime {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', weekday: 'short' })
    formatters.set(timeZone, f)
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]))
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday ?? '')
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), weekday, minutes: Number(parts.hour) * 60 + Number(parts.minute) }
}

/** The instant a local wall-clock time in `timeZone` happens (the later one in a DST overlap is fine here). */
function instantOf(year: number, month: number, day: number, minutes: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day, 0, minutes)
  let guess = wall
  for (let i = 0; i < 3; i++) {
    const local = localTime(guess, timeZone)
    const shown = Date.UTC(local.year, local.month - 1, local.day, 0, local.minutes)
    guess += wall - shown
  }
  return guess - (guess % 60_000)
}

const isWeekday = (weekday: number) => weekday >= 1 && weekday <= 5

/** `now` when it falls in the working hours; otherwise the start of the next working day (weekends skipped). */
export function deliveryTime(now: number, timeZone: string, hours: WorkingHours): number {
  const local = localTime(now, timeZone)
  if (isWeekday(local.weekday) && local.minutes >= hours.start && local.minutes < hours.end) return now
  for (let offset = 0; offset <= 7; offset++) {
    const day = new Date(Date.UTC(local.year, local.month - 1, local.day + offset))
    if (!isWeekday(day.getUTCDay())) continue
    if (offset === 0 && local.minutes >= hours.start) continue
    return instantOf(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), hours.start, timeZone)
  }
  return now
}

/**
 * The working time between two instants: the part of [from, to) that falls in `hours` on a weekday in `timeZone`,
 * less the days `isHoliday` names (`YYYY-MM-DD`, local). What a turnaround figure counts in working hours
 * (docs/review-loop.md), and what a reminder waits. Pure.
 */
export function workingMillisBetween(from: number, to: number, timeZone: string, hours: WorkingHours, isHoliday?: (date: string) => boolean): number {
  if (!(to > from)) return 0
  const first = localTime(from, timeZone)
  let total = 0
  for (let offset = 0; ; offset++) {
    const day = new Date(Date.UTC(first.year, first.month - 1, first.day + offset))
    const [year, month, date] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()]
    const open = instantOf(year, month, date, hours.start, timeZone)
    if (open >= to) return total
    if (!isWeekday(day.getUTCDay()) || isHoliday?.(day.toISOString().slice(0, 10))) continue
    const close = instantOf(year, month, date, hours.end, timeZone)
    total += Math.max(0, Math.min(close, to) - Math.max(open, from))
  }
}
