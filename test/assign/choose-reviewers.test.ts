import { describe, expect, it } from 'vitest'
import { chooseReviewers, type ChoiceFacts } from '../../src/assign/choose-reviewers.ts'
import { statusSaysOut } from '../../src/assign/away-check.ts'
import { renderAssignment } from '../../src/slack/render-assignment.ts'

const TEAM = ['alice', 'bob', 'carol', 'dave']
const facts = (over: Partial<ChoiceFacts> = {}): ChoiceFacts => ({ members: TEAM, excluded: new Set(), away: new Map(), last: [], load: new Map(), ...over })
const rr = { count: 1, strategy: 'round_robin', skipAway: true } as const

describe('chooseReviewers', () => {
  it('round_robin: over eight pull requests each member is asked twice, in turn', () => {
    let last: string[] = []
    const asked: string[] = []
    for (let i = 0; i < 8; i++) {
      last = chooseReviewers(rr, facts({ last })).chosen
      asked.push(...last)
    }
    expect(asked).toEqual([...TEAM, ...TEAM])
  })

  it('round_robin: never the excluded (author, asked already); the turn goes on after them', () => {
    expect(chooseReviewers(rr, facts({ last: ['alice'], excluded: new Set(['bob']) })).chosen).toEqual(['carol'])
    expect(chooseReviewers({ ...rr, count: 3 }, facts({ excluded: new Set(['alice', 'carol']) })).chosen).toEqual(['bob', 'dave'])
  })

  it('skip_away passes over the away and says why; without it they are asked', () => {
    const away = new Map([['bob', 'is away'], ['carol', 'is out of office']])
    expect(chooseReviewers(rr, facts({ last: ['alice'], away }))).toEqual({ chosen: ['dave'], skipped: [{ member: 'bob', why: 'is away' }, { member: 'carol', why: 'is out of office' }] })
    expect(chooseReviewers({ ...rr, skipAway: false }, facts({ last: ['alice'], away })).chosen).toEqual(['bob'])
  })

  it('least_busy: the fewest open review requests first, ties in turn', () => {
    const load = new Map([['alice', 3], ['bob', 1], ['carol', 0], ['dave', 1]])
    const lb = { ...rr, strategy: 'least_busy' } as const
    expect(chooseReviewers({ ...lb, count: 2 }, facts({ load })).chosen).toEqual(['carol', 'bob'])
    expect(chooseReviewers({ ...lb, count: 2 }, facts({ load, last: ['bob'] })).chosen).toEqual(['carol', 'dave'])
  })

  it('gives fewer than count when the team has fewer to give', () => {
    expect(chooseReviewers({ ...rr, count: 5 }, facts({ excluded: new Set(['alice']) })).chosen).toEqual(['bob', 'carol', 'dave'])
  })
})

describe('the line and the status', () => {
  it('renders the assignment as the thread says it', () => {
    expect(renderAssignment([{ name: 'dave' }], 'round_robin', [{ name: 'erin', why: 'is away' }])).toBe('Assigned dave (round robin; erin is away)')
    expect(renderAssignment([{ name: 'dave', slackUser: 'U0DAVE' }, { name: 'a<b' }], 'least_busy', [])).toBe('Assigned <@U0DAVE> and a&lt;b (least busy)')
  })

  it('reads out of office from a status that has not ended', () => {
    const now = Date.UTC(2026, 11, 7)
    expect(statusSaysOut({ text: 'Vacationing', emoji: ':palm_tree:', expiration: 0 }, now)).toBe(true)
    expect(statusSaysOut({ text: 'OOO until Monday', emoji: '', expiration: now / 1000 + 3600 }, now)).toBe(true)
    expect(statusSaysOut({ text: 'Out of office', emoji: '', expiration: now / 1000 - 1 }, now)).toBe(false)
    expect(statusSaysOut({ text: 'In a meeting', emoji: ':spiral_calendar_pad:', expiration: 0 }, now)).toBe(false)
  })
})
