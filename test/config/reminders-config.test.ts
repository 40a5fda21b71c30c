import { describe, expect, it } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { configFile } from '../helpers/config-file.ts'

/** `notify.reminders` read from config.yaml: off unless written, each span defaulted, a bad span refused with its line. */
const { load } = configFile()

const MAPPINGS = 'mappings:\n  acme:\n    api:\n      channel: C0123ABC\n'

describe('notify.reminders', () => {
  it('is off unless written, and off with enabled: false', () => {
    expect(load(`git_provider: github\n${MAPPINGS}`).reminders).toBeUndefined()
    expect(load(`git_provider: github\nnotify:\n  reminders:\n    enabled: false\n    after: 2d\n${MAPPINGS}`).reminders).toBeUndefined()
  })

  it('is on once written, each span it leaves out at its default', () => {
    expect(load(`git_provider: github\nnotify:\n  reminders: {}\n${MAPPINGS}`).reminders).toEqual({ after: '1d', every: '1d', escalateAfter: '3d' })
    expect(load(`git_provider: github\nnotify:\n  reminders:\n    after: 4h\n    escalate_after: 12d\n${MAPPINGS}`).reminders)
      .toEqual({ after: '4h', every: '1d', escalateAfter: '12d' })
  })

  it('refuses every span that is not Nd or Nh at once, each with its line and the fix', () => {
    const yaml = `git_provider: github\nnotify:\n  reminders:\n    after: 1 day\n    every: 2w\n    escalate_after: 0d\n${MAPPINGS}`
    let message = ''
    try {
      load(yaml)
    } catch (error) {
      expect(isPrheraldError(error, 'config_invalid')).toBe(true)
      message = (error as Error).message
    }
    const fix = 'is not a span of working time; write a whole number of working days or hours from 1 to 999, e.g. 1d or 4h'
    expect(message).toContain(`line 4, notify.reminders.after: "1 day" ${fix}`)
    expect(message).toContain(`line 5, notify.reminders.every: "2w" ${fix}`)
    expect(message).toContain(`line 6, notify.reminders.escalate_after: "0d" ${fix}`)
  })
})
