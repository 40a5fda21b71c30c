import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/store.ts'
import { createPersonLimits, PER_MINUTE } from '../../src/talk-back/person-limits.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, useTwoStores } from '../helpers/store-backends.ts'

/**
 * Issue 33.5's limits (at most 5 review actions and 20 replies a minute per person) counted in the store
 * (ActionCounts, migrations/0021): on SQLite and PostgreSQL, and on PostgreSQL by two stores at once, as two
 * replicas count a person's actions together. The clock is the test's: no test waits a minute.
 */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const DAY = 24 * 60 * 60_000

describe.each(storeBackends(() => postgresDatabase))('person limits in the store: $name', (backend) => {
  let now = Date.UTC(2026, 0, 31, 12)
  let store: Store
  let other: Store
  const stores = useTwoStores(backend, () => now)
  beforeEach(() => {
    now = Date.UTC(2026, 0, 31, 12)
    ;({ store, other } = stores())
  })

  it('takes 5 reviews a minute per person, refuses the sixth, and takes again once the minute has passed', async () => {
    const limits = createPersonLimits({ store, now: () => now })
    for (let i = 0; i < PER_MINUTE.reviews; i++) expect(await limits.take('reviews', 'U1')).toBe(true)
    expect(await limits.take('reviews', 'U1')).toBe(false)
    // Another person and another kind have their own counts.
    expect(await limits.take('reviews', 'U2')).toBe(true)
    expect(await limits.take('replies', 'U1')).toBe(true)
    now += 59_999
    expect(await limits.take('reviews', 'U1')).toBe(false)
    now += 1
    expect(await limits.take('reviews', 'U1')).toBe(true)
  })

  it('counts nothing for a refused action: a client that keeps trying is let in once its minute is over', async () => {
    const limits = createPersonLimits({ store, now: () => now, perMinute: { replies: 2 } })
    expect(await limits.take('replies', 'U1')).toBe(true)
    now += 30_000
    expect(await limits.take('replies', 'U1')).toBe(true)
    for (let i = 0; i < 10; i++) expect(await limits.take('replies', 'U1')).toBe(false)
    now += 30_001
    expect(await limits.take('replies', 'U1')).toBe(true)
  })

  it('counts one person\'s actions together across two stores on one database (two replicas)', async () => {
    const [a, b] = [createPersonLimits({ store, now: () => now }), createPersonLimits({ store: other, now: () => now })]
    for (let i = 0; i < PER_MINUTE.reviews; i++) expect(await (i % 2 === 0 ? a : b).take('reviews', 'U1')).toBe(true)
    expect(await b.take('reviews', 'U1')).toBe(false)
    expect(await a.take('reviews', 'U1')).toBe(false)
  })

  it('of many takes at once from two stores, exactly the limit\'s room succeeds', async () => {
    await store.takeAction('replies', 'U1', now - 10_000, 20, 60_000)
    const takes = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? store : other).takeAction('replies', 'U1', now, 20, 60_000))
    expect((await Promise.all(takes)).filter(Boolean)).toHaveLength(19)
    expect(await store.takeAction('replies', 'U1', now, 20, 60_000)).toBe(false)
  })

  it('the daily cleanup deletes actions and gates from before its cutoff, and keeps the minute\'s', async () => {
    expect(await store.takeAction('reviews', 'U1', now - 2 * DAY, 5, 60_000)).toBe(true)
    expect(await store.takeAction('reviews', 'U2', now - 2 * DAY, 5, 60_000)).toBe(true)
    expect(await store.takeAction('reviews', 'U2', now - 1000, 5, 60_000)).toBe(true)
    // U1's action and gate; U2's gate was touched a second ago, and U2's own take pruned its old action.
    expect((await store.forgetBefore(now - DAY)).personActions).toBe(2)
    for (let i = 0; i < 3; i++) expect(await store.takeAction('reviews', 'U2', now, 5, 60_000)).toBe(true)
    expect(await store.takeAction('reviews', 'U2', now, 5, 60_000)).toBe(true)
    expect(await store.takeAction('reviews', 'U2', now, 5, 60_000)).toBe(false)
  })
})
