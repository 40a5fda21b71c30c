import { describe, expect, it } from 'vitest'
import { remindersResult } from '../../src/checks/reminders-check.ts'
import type { DirectMessageSettings } from '../../src/config/settings.ts'

/** What prherald-doctor and the start say of notify.reminders: nothing while off, a WARN when no direct message reaches anyone. */
const settings = (mode: DirectMessageSettings['mode'], on = true) => ({
  directMessages: { mode, workingHours: '08:00-19:00', timeZone: 'UTC', people: {} },
  hosts: [],
  reminders: on ? { after: '1d', every: '1d', escalateAfter: '3d' } : undefined,
})

describe('the reminders check', () => {
  it('says nothing while reminders are off', () => {
    expect(remindersResult(settings('on', false), true)).toEqual([])
  })

  it('is OK with its spans when direct messages reach someone', () => {
    expect(remindersResult(settings('on'), false)).toEqual([{ name: 'reminders', target: 'notify.reminders', status: 'OK', reason: "after 1d, every 1d, escalate_after 3d of each person's working time" }])
    expect(remindersResult(settings('opt_in'), true)[0]!.status).toBe('OK')
  })

  it('warns, with the fix, when no direct message can reach anyone', () => {
    for (const [mode, interactive] of [['off', true], ['opt_in', false]] as const) {
      const [result] = remindersResult(settings(mode), interactive)
      expect(result).toMatchObject({ status: 'WARN', reason: 'on, but no direct message reaches anyone, so nobody is reminded' })
      expect(result!.fix).toContain('notify.direct_messages: on')
    }
  })
})
