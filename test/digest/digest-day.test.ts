import { describe, expect, it } from 'vitest'
import { holidayCalendarProblem, parseHolidayCalendar, timeZoneProblem } from '../../src/config/digest-calendar.ts'
import { digestDay } from '../../src/digest/digest-day.ts'

const at = (iso: string) => Date.parse(iso)

describe('digestDay', () => {
  it('a weekday in UTC is not skipped and starts at UTC midnight', () => {
    expect(digestDay(at('2026-11-23T09:00:00Z'), 'UTC', undefined)).toEqual({ date: '2026-11-23', startOfDay: at('2026-11-23T00:00:00Z'), skip: undefined })
  })

  it('is the calendar day of the time zone, not of UTC, on either side of midnight', () => {
    // Monday 23:30 UTC is already Tuesday 00:30 in Berlin (UTC+1 in November).
    expect(digestDay(at('2026-11-23T23:30:00Z'), 'Europe/Berlin', undefined)).toMatchObject({ date: '2026-11-24', startOfDay: at('2026-11-23T23:00:00Z') })
    // Tuesday 03:00 UTC is still Monday 22:00 in New York (UTC-5).
    expect(digestDay(at('2026-11-24T03:00:00Z'), 'America/New_York', undefined)).toMatchObject({ date: '2026-11-23', startOfDay: at('2026-11-23T05:00:00Z') })
  })

  it('weekends are skipped by the zone\'s day: Friday night UTC is Saturday in Tokyo', () => {
    expect(digestDay(at('2026-11-27T16:00:00Z'), 'UTC', undefined).skip).toBeUndefined()
    expect(digestDay(at('2026-11-27T16:00:00Z'), 'Asia/Tokyo', undefined)).toMatchObject({ date: '2026-11-28', skip: { reason: 'weekend' } })
    expect(digestDay(at('2026-11-29T09:00:00Z'), 'UTC', undefined).skip).toEqual({ reason: 'weekend' })
  })

  it('the start of a day right after a daylight-saving change uses that day\'s offset', () => {
    // Berlin moves to UTC+2 on Sunday 29 March 2026; Monday starts at 22:00 UTC on Sunday.
    expect(digestDay(at('2026-03-30T07:00:00Z'), 'Europe/Berlin', undefined)).toMatchObject({ date: '2026-03-30', startOfDay: at('2026-03-29T22:00:00Z') })
    expect(digestDay(at('2026-10-26T07:00:00Z'), 'Europe/Berlin', undefined)).toMatchObject({ date: '2026-10-26', startOfDay: at('2026-10-25T23:00:00Z') })
  })

  it('holidays are skipped only with a calendar, and regional ones only in their region', () => {
    const christmas = at('2026-12-25T09:00:00Z')
    expect(digestDay(christmas, 'Europe/Berlin', undefined).skip).toBeUndefined()
    expect(digestDay(christmas, 'Europe/Berlin', parseHolidayCalendar('DE')).skip).toMatchObject({ reason: 'holiday' })
    const epiphany = at('2026-01-06T09:00:00Z') // a Tuesday; a public holiday in Bavaria, not in Berlin
    expect(digestDay(epiphany, 'Europe/Berlin', parseHolidayCalendar('DE-BE')).skip).toBeUndefined()
    expect(digestDay(epiphany, 'Europe/Berlin', parseHolidayCalendar('DE-BY')).skip).toMatchObject({ reason: 'holiday' })
    expect(digestDay(at('2026-07-03T15:00:00Z'), 'America/New_York', parseHolidayCalendar('US')).skip).toMatchObject({ reason: 'holiday' })
  })
})

describe('validation of the zone and the calendar', () => {
  it('accepts IANA names and known countries and regions, and says what to write otherwise', () => {
    expect(timeZoneProblem('Europe/Berlin')).toBeUndefined()
    expect(timeZoneProblem('Mars/Olympus')).toMatch(/not an IANA time zone; use a name such as UTC/)
    expect(holidayCalendarProblem('DE')).toBeUndefined()
    expect(holidayCalendarProblem('de-by')).toBeUndefined()
    expect(holidayCalendarProblem('XX')).toMatch(/not a country the holiday calendar knows/)
    expect(holidayCalendarProblem('DE-ZZ')).toMatch(/DE has no region ZZ; use one of .*BY/)
  })
})
