import { createRequire } from 'node:module'
import type HolidaysClass from 'date-holidays'

/**
 * date-holidays, loaded on first use: its tables of every country take about 35 MiB, and only a
 * `digest.holidays` calendar needs them. A synchronous require (its CommonJS build) keeps the config
 * check synchronous and exact, regions included, which a list of our own would not stay.
 */
export function loadHolidays(): typeof HolidaysClass {
  return createRequire(import.meta.url)('date-holidays') as typeof HolidaysClass
}

/** The digest's calendar settings, checked when the configuration is read (src/digest/digest-day.ts uses them). */

/** `DE` or `DE-BY`: a country and optionally one of its regions, as date-holidays names them. */
export interface HolidayCalendar {
  country: string
  region: string | undefined
}

export function parseHolidayCalendar(value: string): HolidayCalendar {
  const [country = '', region] = value.split('-', 2)
  return { country: country.toUpperCase(), region: region?.toUpperCase() }
}

/** What is wrong with a `digest.holidays` value, or undefined when the holiday library knows it. */
export function holidayCalendarProblem(value: string): string | undefined {
  const { country, region } = parseHolidayCalendar(value)
  const Holidays = loadHolidays()
  const countries = new Holidays().getCountries() ?? {}
  if (!Object.hasOwn(countries, country)) return `"${value}" is not a country the holiday calendar knows; use an ISO 3166 code such as DE, US or GB`
  if (region === undefined) return undefined
  const regions = new Holidays().getStates(country) ?? {}
  if (!Object.hasOwn(regions, region)) {
    return `"${value}": ${country} has no region ${region}; use one of ${Object.keys(regions).slice(0, 12).join(', ')}${Object.keys(regions).length > 12 ? ', …' : ''}`
  }
  return undefined
}

/**
 * The default zone. Naming it needs no time zone database: the first `Intl.DateTimeFormat` with a `timeZone`
 * maps about 6 MiB of ICU's tables, which a start with the default zone never needs.
 */
export const UTC = 'UTC'

/** What is wrong with an IANA time zone name, or undefined. */
export function timeZoneProblem(zone: string): string | undefined {
  if (zone === UTC) return undefined
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return undefined
  } catch {
    return `"${zone}" is not an IANA time zone; use a name such as UTC, Europe/Berlin or America/New_York`
  }
}

/**
 * Whether a local date (`YYYY-MM-DD`) is a public holiday of `calendar`: one date-holidays instance and one answer
 * per date, kept, for counting working hours across many days (src/config/working-hours.ts).
 */
export function holidayTest(calendar: HolidayCalendar): (date: string) => boolean {
  const Holidays = loadHolidays()
  const holidays = calendar.region
    ? new Holidays(calendar.country, calendar.region, { types: ['public'] })
    : new Holidays(calendar.country, { types: ['public'] })
  const known = new Map<string, boolean>()
  return (date) => {
    let answer = known.get(date)
    if (answer === undefined) {
      // "isHoliday(date: Date|string)" (date-holidays' types/index.d.ts); a date string is that day in the
      // calendar's own zone, and the answer's `date` is "the start date of the holiday in ISO format without timezone" (README, Dates).
      const found = holidays.isHoliday(date)
      answer = Array.isArray(found) && found.some((h) => h.date.startsWith(date))
      known.set(date, answer)
    }
    return answer
  }
}
