import { describe, expect, it } from 'vitest'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { parseWorkingDuration, workingDurationMs, workingTimeWords } from '../../src/config/working-duration.ts'
import { holdersOf } from '../../src/reminders/holders-of.ts'
import { reminderStep } from '../../src/reminders/reminder-step.ts'

/** The pure rules of reminders: spans, who holds a pull request, what is due. */
const HOURS = { start: 8 * 60, end: 19 * 60 }
const H = 3_600_000

const context = (over: Partial<PullRequestContext> = {}): PullRequestContext => ({
  provider: 'github', owner: 'acme', repo: 'api', number: 42, title: 'Title', url: 'https://github.com/acme/api/pull/42', author: 'alice',
  createdAt: '2026-11-27T15:00:00Z', approvedBy: [], changesRequestedBy: [], commentCount: 0, botReviewers: [], reactions: [], ...over,
})
const asked = (...logins: string[]) => ({ reviewRequests: { listedAt: '2026-11-27T15:00:00Z', listed: logins.map((login) => ({ type: 'user' as const, login })), marks: [] } })

describe('working durations', () => {
  it('reads Nd and Nh, 1 to 999, and nothing else', () => {
    expect(['1d', '4h', '999d'].map(parseWorkingDuration)).toEqual([{ amount: 1, unit: 'd' }, { amount: 4, unit: 'h' }, { amount: 999, unit: 'd' }])
    expect(['0d', '1000h', '1w', '1.5d', 'd', '1 d', '-1d', '01d'].map(parseWorkingDuration)).toEqual(Array(8).fill(undefined))
  })

  it('a working day is as long as the working hours; words in whole days, else whole hours', () => {
    expect(workingDurationMs({ amount: 2, unit: 'd' }, HOURS)).toBe(22 * H)
    expect(workingDurationMs({ amount: 5, unit: 'h' }, HOURS)).toBe(5 * H)
    expect([11 * H, 22 * H + 1, 10 * H, 1].map((ms) => workingTimeWords(ms, HOURS))).toEqual(['1 working day', '2 working days', '10 working hours', '1 working hour'])
  })
})

describe('who holds a pull request', () => {
  it('each person waited on, never a team', () => {
    const teams = { reviewRequests: { listedAt: '2026-11-27T15:00:00Z', listed: [{ type: 'user' as const, login: 'dave' }, { type: 'team' as const, slug: 'backend', name: 'Backend' }], marks: [] } }
    expect(holdersOf(context(teams))).toEqual([{ key: 'dave', role: 'review', why: 'review' }])
  })

  it('the author while changes are requested or checks fail, or once approved with nobody waited on', () => {
    expect(holdersOf(context({ changesRequestedBy: ['erin'] }))).toEqual([{ key: 'alice', role: 'author', why: 'changes requested by erin' }])
    expect(holdersOf(context({ checks: { 'app:ci': { outcome: 'failed', at: '2026-11-27T16:00:00Z' } } }))[0]!.why).toBe('checks failing')
    expect(holdersOf(context({ approvedBy: ['erin'] }))).toEqual([{ key: 'alice', role: 'author', why: 'approved, not merged yet' }])
    // Approved, and still waiting on dave: dave holds it, not the author.
    expect(holdersOf(context({ approvedBy: ['erin'], ...asked('dave') })).map((h) => h.key)).toEqual(['dave'])
    expect(holdersOf(context())).toEqual([])
  })
})

describe('what a hold is due', () => {
  const spans = { afterMs: 11 * H, everyMs: 11 * H, escalateMs: 33 * H }
  it('the first reminder at after, the next every after the last, the thread line once at escalate_after', () => {
    expect(reminderStep({ reminders: 0, escalatedAt: null }, 11 * H - 1, 0, spans)).toEqual({ remind: false, escalate: false })
    expect(reminderStep({ reminders: 0, escalatedAt: null }, 11 * H, 0, spans)).toEqual({ remind: true, escalate: false })
    expect(reminderStep({ reminders: 1, escalatedAt: null }, 20 * H, 9 * H, spans)).toEqual({ remind: false, escalate: false })
    expect(reminderStep({ reminders: 2, escalatedAt: null }, 33 * H, 11 * H, spans)).toEqual({ remind: true, escalate: true })
    expect(reminderStep({ reminders: 3, escalatedAt: 1 }, 40 * H, 7 * H, spans)).toEqual({ remind: false, escalate: false })
  })
})
