import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/store.ts'
import type { TurnaroundRecord } from '../../src/store/turnaround-store.ts'
import { runCleanup } from '../../src/store/cleanup-job.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, useTwoStores } from '../helpers/store-backends.ts'

/** Turnaround rows (migrations/0045): written with a batch's commit, read back whole, kept insights.keep_days. */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const DAY = 24 * 60 * 60_000
const ref = { provider: 'github', repository: 'acme/api', prNumber: 7 }
const row: TurnaroundRecord = {
  ...ref, entry: 'acme/*', author: 'bob', openedAt: Date.UTC(2026, 11, 4, 9), readyAt: Date.UTC(2026, 11, 4, 10),
  firstReviewAt: Date.UTC(2026, 11, 4, 12), firstApprovalAt: Date.UTC(2026, 11, 4, 13), mergedAt: Date.UTC(2026, 11, 4, 14), closedAt: null,
  mergedBy: 'erin', reviews: [{ login: 'carol', at: Date.UTC(2026, 11, 4, 12) }], teams: ['backend'],
}

describe.each(storeBackends(() => postgresDatabase))('turnaround rows: $name', (backend) => {
  let now = Date.UTC(2026, 11, 7, 12)
  let store: Store
  const stores = useTwoStores(backend, () => now)
  beforeEach(() => {
    now = Date.UTC(2026, 11, 7, 12)
    ;({ store } = stores())
  })

  it('commits the row with the batch and reads it back whole; a second commit replaces it', async () => {
    await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [], turnaround: row })
    expect(await store.turnaroundOf(ref)).toEqual(row)
    await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [], turnaround: { ...row, closedAt: 5, reviews: [] } })
    expect(await store.turnaroundOf(ref)).toEqual({ ...row, closedAt: 5, reviews: [] })
    expect(await store.turnaroundOf({ ...ref, prNumber: 8 })).toBeUndefined()
  })

  it('lists rows changed since a time, and cleanup keeps them keep_days whatever message_ttl_days is', async () => {
    await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [], turnaround: row })
    expect((await store.turnaroundSince(now - DAY)).map((r) => r.prNumber)).toEqual([7])
    expect(await store.turnaroundSince(now + 1)).toEqual([])
    const logger = createLogger({ format: 'json', level: 'error' })
    now += 40 * DAY
    await runCleanup({ store, logger, ttlDays: 30, turnaroundKeepDays: 400, now: () => now })
    expect(await store.turnaroundOf(ref)).toBeDefined()
    await runCleanup({ store, logger, ttlDays: 30, turnaroundKeepDays: 39, now: () => now })
    expect(await store.turnaroundOf(ref)).toBeUndefined()
  })
})
