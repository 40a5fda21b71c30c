import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startCleanupJob } from '../../src/store/cleanup-job.ts'
import { createLogger } from '../../src/log/logger.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'

/**
 * Cleanup once per cluster: two stores on one real PostgreSQL database (what two replicas have) each start
 * the cleanup job, at the same moment; the day's cleanup runs on one of them only, and the next day's again
 * on one only. Runs are counted from the `cleanup finished` log lines, never timed.
 */
const DAY = 24 * 60 * 60 * 1000
let database: TestDatabase
let schema: TestDatabase
let stores: Store[] = []
let stops: Array<() => void> = []
let clock = Date.UTC(2026, 10, 23, 9, 30)
const finished: string[] = []

beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())
beforeEach(async () => {
  schema = await createTestSchema(database)
  finished.length = 0
  clock = Date.UTC(2026, 10, 23, 9, 30)
  stores = await Promise.all([0, 1].map(async () => {
    const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
    return createPostgresStore({ pool, now: () => clock })
  }))
  const migrating = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  await postgresMigrateUp(migrating).finally(() => migrating.end())
})
afterEach(async () => {
  for (const stop of stops) stop()
  stops = []
  await Promise.all(stores.map((s) => s.close()))
  await schema.drop()
})

const replica = (store: Store, name: string) => ({
  store, ttlDays: 30, now: () => clock,
  logger: createLogger({ format: 'json', level: 'info', write: (line) => { if (JSON.parse(line).msg === 'cleanup finished') finished.push(name) } }),
})

const message = (prNumber: number) => ({
  provider: 'github' as const, repository: 'acme/api', prNumber, channel: 'C0123ABC', ts: `${prNumber}.0001`,
  mentions: [], state: 'open', lifecycle: {} as never, lastDeliveryId: null, reactions: [],
})

describe('cleanup across replicas', () => {
  it('two replicas starting together run the day\'s cleanup once, and the next day\'s once', async () => {
    clock -= 40 * DAY
    await stores[0]!.saveMessage(message(1))
    clock += 40 * DAY
    const jobs = await Promise.all([startCleanupJob(replica(stores[0]!, 'a')), startCleanupJob(replica(stores[1]!, 'b'))])
    stops = jobs.map((j) => j.stop)
    expect(finished).toHaveLength(1)
    expect(await stores[1]!.countMessages()).toBe(0)

    // Both try again later the same day (a restart, the hourly check): nothing runs.
    clock += 3 * 60 * 60 * 1000
    const again = await Promise.all([startCleanupJob(replica(stores[0]!, 'a')), startCleanupJob(replica(stores[1]!, 'b'))])
    stops.push(...again.map((j) => j.stop))
    expect(finished).toHaveLength(1)

    // The next UTC day: one run again, on whichever replica claims it.
    clock += DAY
    const next = await Promise.all([startCleanupJob(replica(stores[1]!, 'b')), startCleanupJob(replica(stores[0]!, 'a'))])
    stops.push(...next.map((j) => j.stop))
    expect(finished).toHaveLength(2)
  })
})
