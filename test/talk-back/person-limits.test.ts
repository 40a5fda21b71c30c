import { describe, expect, it } from 'vitest'
import { createPersonLimits, PER_MINUTE } from '../../src/talk-back/person-limits.ts'

describe('talk-back limits per person', () => {
  it('takes 5 reviews a minute per person, refuses the sixth, and takes again once the minute has passed', () => {
    let now = 1_000_000
    const limits = createPersonLimits({ now: () => now })
    for (let i = 0; i < PER_MINUTE.reviews; i++) expect(limits.take('reviews', 'U1')).toBe(true)
    expect(limits.take('reviews', 'U1')).toBe(false)
    // Another person and another kind have their own counts.
    expect(limits.take('reviews', 'U2')).toBe(true)
    expect(limits.take('replies', 'U1')).toBe(true)
    now += 59_999
    expect(limits.take('reviews', 'U1')).toBe(false)
    now += 1
    expect(limits.take('reviews', 'U1')).toBe(true)
  })

  it('counts nothing for a refused action: a client that keeps trying is let in once its minute is over', () => {
    let now = 0
    const limits = createPersonLimits({ now: () => now, perMinute: { replies: 2 } })
    expect(limits.take('replies', 'U1')).toBe(true)
    now += 30_000
    expect(limits.take('replies', 'U1')).toBe(true)
    for (let i = 0; i < 10; i++) expect(limits.take('replies', 'U1')).toBe(false)
    now += 30_001
    expect(limits.take('replies', 'U1')).toBe(true)
  })
})
