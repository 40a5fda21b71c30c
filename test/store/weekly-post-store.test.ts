import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, useTwoStores } from '../helpers/store-backends.ts'

/**
 * The weekly posts' rows (migrations/0048) on both engines, two stores on one database as two replicas have:
 * of two holds at once one wins; nobody takes a held row before its time runs out, anybody after; a done row
 * is never taken again; a channel forgets its old weeks.
 */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const NOW = Date.UTC(2026, 11, 7, 9, 30)
const post = { channel: 'C0WEEKLY1', week: '2026-W50', asOf: NOW }

describe.each(storeBackends(() => postgresDatabase))('weekly posts: $name', (backend) => {
  const stores = useTwoStores(backend, () => NOW)

  it('is held by one of two replicas at once, taken over only once the hold ran out, and never once done', async () => {
    const { store, other } = stores()
    const held = await Promise.all([store.holdWeeklyPost(post, 'a', NOW, NOW + 60_000), other.holdWeeklyPost(post, 'b', NOW, NOW + 60_000)])
    expect(held.filter(Boolean)).toHaveLength(1)
    const holder = held[0] ? 'a' : 'b'
    expect(await store.weeklyPostOf(post.channel, post.week)).toMatchObject({ owner: holder, heldUntil: NOW + 60_000, asOf: NOW, intentAt: null, fileId: null, doneAt: null })

    expect(await other.holdWeeklyPost({ ...post, asOf: NOW + 1 }, 'c', NOW + 59_999, NOW + 120_000)).toBe(false)
    expect(await other.leftWeeklyPosts(NOW + 59_999)).toEqual([])
    await store.recordWeeklyIntent(post.channel, post.week, NOW + 5)
    await store.recordWeeklyFile(post.channel, post.week, 'F0UPLOAD1')
    expect(await other.leftWeeklyPosts(NOW + 60_001)).toEqual([{ channel: post.channel, week: post.week }])
    // Taken over: the new holder keeps the post's moment and sees what the last one left.
    expect(await other.holdWeeklyPost({ ...post, asOf: NOW + 60_001 }, 'c', NOW + 60_001, NOW + 120_000)).toBe(true)
    expect(await other.weeklyPostOf(post.channel, post.week)).toMatchObject({ owner: 'c', asOf: NOW, intentAt: NOW + 5, fileId: 'F0UPLOAD1', doneAt: null })

    await other.finishWeeklyPost(post.channel, post.week, 'posted', NOW + 61_000)
    expect(await store.holdWeeklyPost(post, 'a', NOW + 500_000, NOW + 560_000)).toBe(false)
    expect(await store.leftWeeklyPosts(NOW + 500_000)).toEqual([])
  })

  it('forgets a channel\'s weeks before the one given, and no other channel\'s', async () => {
    const { store } = stores()
    for (const week of ['2026-W40', '2026-W49', '2026-W50']) await store.holdWeeklyPost({ ...post, week }, 'a', NOW, NOW)
    await store.holdWeeklyPost({ ...post, channel: 'C0WEEKLY2', week: '2026-W40' }, 'a', NOW, NOW)
    await store.forgetWeeklyPosts(post.channel, '2026-W42')
    expect(await store.weeklyPostOf(post.channel, '2026-W40')).toBeUndefined()
    expect(await store.weeklyPostOf(post.channel, '2026-W49')).toBeDefined()
    expect(await store.weeklyPostOf('C0WEEKLY2', '2026-W40')).toBeDefined()
  })
})
