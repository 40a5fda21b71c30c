import { loadHolidays, type HolidayCalendar } from '../config/digest-calendar.ts'

/** Where a moment falls for the digest: the calendar day in the digest's time zone, and whether it is skipped. */
export interface DigestDay {
  /** `YYYY-MM-DD` in the digest's time zone. */
  date: string
  /** The first instant of that day in the time zone (unix ms): activity before it makes a pull request stuck. */
  startOfDay: number
  skip: { reason: 'weekend' } | { reason: 'holiday'; name: string } | undefined
}


const parts = (ms: number, zone: string) => {
  const fields = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', weekday: 'short',
  }).formatToParts(new Date(ms))
  const get = (type: string) => fields.find((f) => f.type === type)?.value ?? ''
  return { year: Number(get('year')), month: Number(get('month')), day: Number(get('day')), hour: Number(get('hour')), minute: Number(get('minute')), second: Number(get('second')), weekday: get('weekday') }
}

/** The zone's offset from UTC at `ms`, in ms (positive east of Greenwich). */
function offsetAt(ms: number, zone: string): number {
  const p = parts(ms, zone)
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000
}

/** The first instant of the calendar day `y-m-d` in `zone`, across daylight-saving changes. */
function zonedMidnight(year: number, month: number, day: number, zone: string): number {
  const utcMidnight = Date.UTC(year, month - 1, day)
  let guess = utcMidnight - offsetAt(utcMidnight, zone)
  // The offset at the guess may differ from the one at UTC midnight (a change that day): settle it.
  guess = utcMidnight - offsetAt(guess, zone)
  return guess
}

/**
 * The digest's view of `now`: the day in `zone`, its start, and whether the digest skips it. Weekends
 * (Saturday, Sunday) are always skipped; holidays only when a calendar is configured. Pure but for the
 * holiday library's tables.
 */
export function digestDay(now: number, zone: string, calendar: HolidayCalendar | undefined): DigestDay {
  const p = parts(now, zone)
  const date = `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`
  const startOfDay = zonedMidnight(p.year, p.month, p.day, zone)
  if (p.weekday === 'Sat' || p.weekday === 'Sun') return { date, startOfDay, skip: { reason: 'weekend' } }
  if (calendar) {
    const Holidays = loadHolidays()
    const holidays = calendar.region
      ? new Holidays(calendar.country, calendar.region, { types: ['public'] })
      : new Holidays(calendar.country, { types: ['public'] })
    // Asked at noon of that day in the zone: date-holidays matches whole local days of its own zone.
    const found = holidays.isHoliday(new Date(startOfDay + 12 * 3600 * 1000))
    const holiday = Array.isArray(found) ? found.find((h) => h.date.startsWith(date)) ?? found[0] : undefined
    if (holiday) return { date, startOfDay, skip: { reason: 'holiday', name: holiday.name } }
  }
  return { date, startOfDay, skip: undefined }
}
