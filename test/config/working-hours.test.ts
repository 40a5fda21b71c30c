import { describe, expect, it } from 'vitest'
import { deliveryTime, parseWorkingHours, workingHoursProblem } from '../../src/config/working-hours.ts'

const hours = parseWorkingHours('08:00-19:00')!
const at = (iso: string) => Date.parse(iso)

describe('working hours', () => {
  it('parse HH:MM-HH:MM and refuse anything else with the fix', () => {
    expect(parseWorkingHours('09:30-18:00')).toEqual({ start: 570, end: 1080 })
    expect(workingHoursProblem('18:00-09:00')).toMatch(/HH:MM-HH:MM/)
    expect(workingHoursProblem('9-5')).toMatch(/e.g. 09:00-18:00/)
  })

  it('deliver at once inside the hours, on a weekday, in the person\'s zone', () => {
    expect(deliveryTime(at('2026-11-25T10:00:00Z'), 'Europe/Berlin', hours)).toBe(at('2026-11-25T10:00:00Z'))
  })

  it('hold a message due in the evening until the next morning, and one due on Friday night until Monday', () => {
    // Wednesday 20:00 in Berlin (UTC+1 in November): Thursday 08:00 Berlin is 07:00 UTC.
    expect(deliveryTime(at('2026-11-25T19:00:00Z'), 'Europe/Berlin', hours)).toBe(at('2026-11-26T07:00:00Z'))
    // Friday 22:00 in New York (UTC-5): Monday 08:00 New York is 13:00 UTC.
    expect(deliveryTime(at('2026-11-28T03:00:00Z'), 'America/New_York', hours)).toBe(at('2026-11-30T13:00:00Z'))
    // Early on a weekday: the same day's start.
    expect(deliveryTime(at('2026-11-25T05:00:00Z'), 'UTC', hours)).toBe(at('2026-11-25T08:00:00Z'))
  })

  it('follow daylight saving time', () => {
    // Sunday 29 March 2026, the clocks go forward in Berlin: Monday 08:00 is 06:00 UTC.
    expect(deliveryTime(at('2026-03-28T12:00:00Z'), 'Europe/Berlin', hours)).toBe(at('2026-03-30T06:00:00Z'))
  })
})
