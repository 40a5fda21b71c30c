import { describe, expect, it } from 'vitest'
import { configFile } from '../helpers/config-file.ts'

/** `insights.weekly`: one entry or a list, each refused with its line and fix, all problems at once. */
const { load, refusal } = configFile()

const MAPPINGS = 'mappings:\n  acme:\n    api:\n      channel: C0123ABC\n'



describe('insights.weekly', () => {
  it('is off by default, one entry is a list of one, and `at` defaults to 09:30', () => {
    expect(load(`git_provider: github\n${MAPPINGS}`).insights.weekly).toEqual([])
    const one = load(`git_provider: github\ninsights:\n  enabled: true\n  weekly: { channel: C0WEEKLY1, day: monday }\n${MAPPINGS}`)
    expect(one.insights.weekly).toEqual([{ channel: 'C0WEEKLY1', day: 'monday', at: '09:30' }])
    const two = load(`git_provider: github\ninsights:\n  enabled: true\n  weekly:\n    - { channel: C0WEEKLY1, day: monday, at: "08:15" }\n    - { channel: C0WEEKLY2, day: friday, at: "16:00" }\n${MAPPINGS}`)
    expect(two.insights.weekly).toEqual([
      { channel: 'C0WEEKLY1', day: 'monday', at: '08:15' },
      { channel: 'C0WEEKLY2', day: 'friday', at: '16:00' },
    ])
  })

  it('refuses a channel name, a weekday, a time and a key that are wrong, each with its line', () => {
    const message = refusal([
      'git_provider: github',
      'insights:',
      '  enabled: true',
      '  weekly:',
      '    - { channel: "#reviews", day: monday }',
      '    - { channel: C0WEEKLY2, day: mondays, at: "9:30" }',
      '    - { channel: C0WEEKLY3, day: friday, hour: 9 }',
      MAPPINGS,
    ].join('\n'))
    expect(message).toContain('line 5, insights.weekly.0.channel: "#reviews" is a channel name; use the channel ID instead')
    expect(message).toContain('line 6, insights.weekly.1.day: "mondays" is not allowed; use one of')
    expect(message).toContain('line 6, insights.weekly.1.at: "9:30" is not a time of day; write HH:MM on the 24-hour clock, quoted, e.g. "09:30"')
    expect(message).toContain('insights.weekly.2.hour: unknown key; remove it or fix its spelling (allowed here: channel, day, at)')
  })

  it('refuses a channel named twice and a weekly summary without the figures, at once', () => {
    const message = refusal([
      'git_provider: github',
      'insights:',
      '  weekly:',
      '    - { channel: C0WEEKLY1, day: monday }',
      '    - { channel: C0WEEKLY1, day: friday }',
      MAPPINGS,
    ].join('\n'))
    expect(message).toContain('line 3, insights.weekly: needs the turnaround figures; set insights.enabled: true (or remove insights.weekly)')
    expect(message).toContain('line 5, insights.weekly.1.channel: C0WEEKLY1 is named twice; a channel gets one weekly summary, so keep one of its entries')
  })
})
