import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/store.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, type Backend } from '../helpers/store-backends.ts'

/** Issue 33.2: a thread reply's comment in the store (migration 0019), on SQLite and PostgreSQL. */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const DAY = 86_400_000
const pr = { provider: 'github' as const, repository: 'acme/api', prNumber: 7 }
const intent = { ...pr, channel: 'C1', replyTs: '1800000001.000100', slackUser: 'U1', author: 'person' as const }

describe.each(storeBackends(() => postgresDatabase))('reply comments: $name', (backend) => {
  let db: Awaited<ReturnType<Backend['create']>>
  let store: Store
  const clock = { now: 100 * DAY }
  beforeEach(async () => {
    db = await backend.create()
    store = await db.open(() => clock.now)
  })
  afterEach(async () => {
    await store.close()
    await db.remove()
  })

  it('finds a thread\'s pull request by channel and ts', async () => {
    await store.saveMessage({ ...pr, channel: 'C1', ts: '1700000000.000100', mentions: [], state: 'open', lifecycle: {} as never, lastDeliveryId: null, reactions: [] })
    expect(await store.messageAt('C1', '1700000000.000100')).toEqual(pr)
    expect(await store.messageAt('C2', '1700000000.000100')).toBeUndefined()
  })

  it('an intent, then its comment; a later intent never replaces a made comment; a refused one goes', async () => {
    await store.recordReplyIntent({ ...intent, intentAt: 5 })
    expect(await store.replyIntents()).toEqual([{ ...intent, commentId: undefined, deleted: false, intentAt: 5 }])
    await store.completeReplyComment('C1', intent.replyTs, '1234')
    await store.recordReplyIntent({ ...intent, author: 'prherald', intentAt: 9 })
    expect(await store.replyComment('C1', intent.replyTs)).toEqual({ ...intent, commentId: '1234', deleted: false, intentAt: 5 })
    expect(await store.replyIntents()).toEqual([])
    await store.markReplyDeleted('C1', intent.replyTs)
    expect((await store.replyComment('C1', intent.replyTs))!.deleted).toBe(true)

    await store.recordReplyIntent({ ...intent, replyTs: '1800000002.000100', intentAt: 6 })
    await store.dropReplyIntent('C1', '1800000002.000100')
    expect(await store.replyComment('C1', '1800000002.000100')).toBeUndefined()
  })

  it('cleanup forgets a row unchanged for the message TTL', async () => {
    await store.recordReplyIntent({ ...intent, intentAt: clock.now })
    clock.now += 31 * DAY
    await store.recordReplyIntent({ ...intent, replyTs: '1800000003.000100', intentAt: clock.now })
    const forgotten = await store.forgetBefore(clock.now - 30 * DAY)
    expect(forgotten.threadRecords).toBe(1)
    expect(await store.replyComment('C1', intent.replyTs)).toBeUndefined()
    expect(await store.replyComment('C1', '1800000003.000100')).toBeDefined()
  })
})
