import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { runCleanup } from '../../src/store/cleanup-job.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createLogger } from '../../src/log/logger.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

const DAY = 24 * 60 * 60 * 1000
let dir: ReturnType<typeof makeTempDir>
let clock: number
let store: Store

beforeEach(() => {
  dir = makeTempDir()
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  clock = Date.UTC(2026, 0, 31)
  store = createSqliteStore(db, () => clock)
})
afterEach(async () => {
  await store.close()
  dir.remove()
})

const message = (prNumber: number) => ({
  provider: 'github' as const, repository: 'acme/api', prNumber, channel: 'C0123ABC', ts: `${prNumber}.0001`,
  mentions: [], state: 'open', lifecycle: {} as never, lastDeliveryId: null, reactions: [],
})

describe('cleanup', () => {
  it('deletes only rows untouched for longer than message_ttl_days', async () => {
    clock -= 40 * DAY
    await store.saveMessage(message(1)) // untouched for 40 days
    clock += 9 * DAY
    await store.saveMessage(message(2)) // 31 days
    clock += 2 * DAY
    await store.saveMessage(message(3)) // 29 days
    clock += 29 * DAY
    await store.saveMessage(message(4)) // just now
    clock -= 0
    const logs: string[] = []
    const logger = createLogger({ format: 'json', level: 'info', write: (l) => logs.push(l) })
    const result = await runCleanup({ store, logger, ttlDays: 30, now: () => clock })
    expect(result.messages).toBe(2)
    expect(await store.countMessages()).toBe(2)
    expect(await store.findMessages({ provider: 'github', repository: 'acme/api', prNumber: 3 })).toHaveLength(1)
    expect(await store.findMessages({ provider: 'github', repository: 'acme/api', prNumber: 1 })).toHaveLength(0)
    expect(JSON.parse(logs[0] ?? '{}')).toMatchObject({ msg: 'cleanup finished', deleted_messages: 2 })
  })

  it('a touch keeps an old row alive', async () => {
    clock -= 40 * DAY
    await store.saveMessage(message(1))
    clock += 39 * DAY
    await store.saveMessage({ ...message(1), state: 'merged' })
    clock += 1 * DAY
    const logger = createLogger({ format: 'json', level: 'error', write: () => {} })
    expect((await runCleanup({ store, logger, ttlDays: 30, now: () => clock })).messages).toBe(0)
  })

  it('forgets applied delivery ids after the same age but never pending ones', async () => {
    clock -= 40 * DAY
    await store.recordDelivery({ provider: 'github', deliveryId: 'old-applied', prKey: 'k', event: {} as never })
    await store.recordDelivery({ provider: 'github', deliveryId: 'old-pending', prKey: 'k', event: {} as never })
    await store.commitOutcome({ provider: 'github', deliveryIds: ['old-applied'], messages: [] })
    clock += 40 * DAY
    const logger = createLogger({ format: 'json', level: 'error', write: () => {} })
    expect((await runCleanup({ store, logger, ttlDays: 30, now: () => clock })).deliveries).toBe(1)
    expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['old-pending'])
    expect(await store.recordDelivery({ provider: 'github', deliveryId: 'old-applied', prKey: 'k', event: {} as never })).toBe(true)
  })

  it('keeps applied delivery ids and body digests for the replay window (7 days) even when message_ttl_days is 1', async () => {
    const delivery = (id: string) => ({ provider: 'github', deliveryId: id, prKey: 'k', event: {} as never, body: { digest: `digest-of-${id}`, deliveryId: id } })
    clock -= 8 * DAY
    await store.recordDelivery(delivery('eight-days'))
    await store.commitOutcome({ provider: 'github', deliveryIds: ['eight-days'], messages: [] })
    clock += 5 * DAY
    await store.recordDelivery(delivery('three-days'))
    await store.commitOutcome({ provider: 'github', deliveryIds: ['three-days'], messages: [] })
    clock += 3 * DAY
    const logger = createLogger({ format: 'json', level: 'error', write: () => {} })
    expect((await runCleanup({ store, logger, ttlDays: 1, now: () => clock })).deliveries).toBe(1)
    // Within the window: GitHub's redelivery is a duplicate, and the body under a new id is a replay.
    expect(await store.recordDelivery(delivery('three-days'))).toBe(false)
    expect(await store.recordDelivery({ ...delivery('new-id'), body: { digest: 'digest-of-three-days', deliveryId: 'new-id' } })).toBe(false)
    expect(await store.firstDeliveryOfBody('github', 'digest-of-eight-days')).toBeUndefined()
  })

  it('forgets once-per-run claims after the same age, keeping recent ones claimed', async () => {
    clock -= 40 * DAY
    await store.claimRun('digest:0 9 * * 1-5', '2025-12-22')
    clock += 39 * DAY
    await store.claimRun('digest:0 9 * * 1-5', '2026-01-30')
    clock += 1 * DAY
    const logs: string[] = []
    const logger = createLogger({ format: 'json', level: 'info', write: (l) => logs.push(l) })
    expect((await runCleanup({ store, logger, ttlDays: 30, now: () => clock })).runClaims).toBe(1)
    expect(JSON.parse(logs[0] ?? '{}')).toMatchObject({ msg: 'cleanup finished', deleted_run_claims: 1 })
    expect(await store.claimRun('digest:0 9 * * 1-5', '2026-01-30')).toBe(false)
    expect(await store.claimRun('digest:0 9 * * 1-5', '2025-12-22')).toBe(true)
  })

  it('deletes review forms that expired, whatever message_ttl_days, and keeps a form still open', async () => {
    const HOUR = 60 * 60 * 1000
    const form = (id: string, expiresAt: number) => ({
      id, pr: { provider: 'github' as const, repository: 'acme/api', prNumber: 1 }, headSha: 'abc', action: 'approve' as const, slackUser: 'U1', expiresAt,
    })
    // A form still open, and an hour's form opened two hours ago that no form opened since has swept.
    await store.saveReviewForm(form('open', clock + HOUR))
    clock -= 2 * HOUR
    await store.saveReviewForm(form('left', clock + HOUR))
    clock += 2 * HOUR
    const logs: string[] = []
    const logger = createLogger({ format: 'json', level: 'info', write: (l) => logs.push(l) })
    await runCleanup({ store, logger, ttlDays: 30, now: () => clock })
    expect(JSON.parse(logs[0] ?? '{}')).toMatchObject({ msg: 'cleanup finished', deleted_review_forms: 1 })
    expect(await store.reviewForm('left')).toBeUndefined()
    expect(await store.reviewForm('open')).toBeDefined()
  })

  it('deletes the talk-back limits\' counts from before the cutoff', async () => {
    await store.takeAction('replies', 'U1', clock - 40 * DAY, 20, 60_000)
    await store.takeAction('replies', 'U2', clock - 1000, 20, 60_000)
    const logs: string[] = []
    const logger = createLogger({ format: 'json', level: 'info', write: (l) => logs.push(l) })
    await runCleanup({ store, logger, ttlDays: 30, now: () => clock })
    // U1's action and the gate its take wrote; U2's, a second old, stay and still count.
    expect(JSON.parse(logs[0] ?? '{}')).toMatchObject({ msg: 'cleanup finished', deleted_person_actions: 2 })
    expect(await store.takeAction('replies', 'U2', clock, 1, 60_000)).toBe(false)
  })
})
