import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/store.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, type Backend } from '../helpers/store-backends.ts'

/** The personal side of the store (issue 24.1, 24.2) on SQLite and PostgreSQL: queued once, claimed by one sender. */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const row = (dmKey: string, dueAt: number, recipient = 'U1') => ({ recipient, dmKey, prKey: 'github:acme/api#7', body: `line ${dmKey}`, dueAt, createdAt: 1000 })

describe.each(storeBackends(() => postgresDatabase))('personal store: $name', (backend) => {
  let db: Awaited<ReturnType<Backend['create']>>
  let store: Store
  let other: Store
  beforeEach(async () => {
    db = await backend.create()
    store = await db.open(() => 5000)
    other = await db.open(() => 5000)
  })
  afterEach(async () => {
    await store.close()
    await other.close()
    await db.remove()
  })

  it('queues a message once per person and key: a replay queues nothing', async () => {
    expect(await store.queueDirectMessages([row('d1:approved', 0), row('d1:merged', 0)])).toBe(2)
    expect(await store.queueDirectMessages([row('d1:approved', 0)])).toBe(0)
    expect((await store.directMessagesOf('U1')).map((m) => m.dmKey)).toEqual(['d1:approved', 'd1:merged'])
  })

  it('hands a person\'s due messages to one sender at a time, and again once its claim runs out', async () => {
    await store.queueDirectMessages([row('a', 100), row('b', 50_000), row('c', 100, 'U2')])
    expect(await store.dueRecipients(200)).toEqual(['U1', 'U2'])
    const [mine, theirs] = await Promise.all([
      store.claimDirectMessages('U1', 'replica-a', 200, 10_000),
      other.claimDirectMessages('U1', 'replica-b', 200, 10_000),
    ])
    expect([mine.length, theirs.length].sort()).toEqual([0, 1])
    expect([...mine, ...theirs].map((m) => m.dmKey)).toEqual(['a'])
    expect(await store.dueRecipients(300)).toEqual(['U2'])
    // The claim ran out (its sender died): another sender gets the row, with the batch it was being sent in.
    const owner = mine.length > 0 ? 'replica-a' : 'replica-b'
    await store.setBatch('U1', owner, ['a'], 'batch-1', 250)
    const again = await other.claimDirectMessages('U1', 'replica-c', 10_001, 20_000)
    expect(again).toEqual([expect.objectContaining({ dmKey: 'a', batch: 'batch-1', batchAt: 250 })])
    await other.finishBatch('U1', 'batch-1', 'sent', 'DU1', '1.000100')
    expect(await store.dueRecipients(20_001)).toEqual(['U2'])
    // Cleanup forgets what was sent before its cutoff, never what is still queued (U1's b, U2's c).
    expect((await store.forgetBefore(1001)).directMessages).toBe(1)
    expect((await store.directMessagesOf('U1')).map((m) => m.dmKey)).toEqual(['b'])
    expect((await store.directMessagesOf('U2')).map((m) => m.dmKey)).toEqual(['c'])
  })

  it('keeps preferences, mutes and time zones', async () => {
    expect(await store.preferenceOf('U1')).toEqual({ directMessages: undefined, workingHours: undefined })
    await store.savePreference('U1', { directMessages: 'on' })
    await store.savePreference('U1', { workingHours: '09:00-18:00' })
    expect(await store.preferenceOf('U1')).toEqual({ directMessages: 'on', workingHours: '09:00-18:00' })
    await store.setMuted('U1', 'github:acme/api#7', true)
    await store.setMuted('U2', 'github:acme/api#8', true)
    expect(await store.isMuted('U1', 'github:acme/api#7')).toBe(true)
    expect(await store.mutesOf('U1')).toEqual(['github:acme/api#7'])
    await store.setMuted('U1', 'github:acme/api#7', false)
    expect(await store.isMuted('U1', 'github:acme/api#7')).toBe(false)
    expect(await store.mutesOf('U1')).toEqual([])
    await store.saveZone('U1', 'Europe/Berlin', 6000)
    await store.saveZone('U2', undefined, 6000)
    expect(await store.zoneOf('U1', 5000)).toEqual({ timeZone: 'Europe/Berlin' })
    expect(await store.zoneOf('U2', 5000)).toEqual({ timeZone: undefined })
    expect(await store.zoneOf('U1', 7000)).toBeUndefined()
  })
})
