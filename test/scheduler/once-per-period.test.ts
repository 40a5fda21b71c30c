import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { cleanupRunKey, runCleanup } from '../../src/store/cleanup-job.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createScheduler, type Scheduler } from '../../src/scheduler/scheduler.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'
import { manualClock } from '../helpers/manual-clock.ts'

/**
 * Once per period across replicas: two stores on one real PostgreSQL database (what two replicas have) each
 * run a scheduler with the daily cleanup job (as the service adds it), on one fake clock. The day's cleanup
 * runs on one of them only, a firing later that day (the hourly check, a restart) runs nothing, and the next
 * UTC day's runs once again. Runs are counted from the `cleanup finished` log lines, never timed.
 */
const DAY = 24 * 60 * 60 * 1000
let database: TestDatabase
let schema: TestDatabase
let stores: Store[] = []
let schedulers: Scheduler[] = []
let clock: ReturnType<typeof manualClock>
const finished: string[] = []

beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())
beforeEach(async () => {
  schema = await createTestSchema(database)
  finished.length = 0
  clock = manualClock()
  await clock.advance(Date.UTC(2026, 10, 23, 9, 30))
  stores = await Promise.all([0, 1].map(async () => {
    const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
    return createPostgresStore({ pool, now: () => clock.now() })
  }))
  const migrating = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  await postgresMigrateUp(migrating).finally(() => migrating.end())
})
afterEach(async () => {
  for (const scheduler of schedulers) await scheduler.stop(Date.now())
  schedulers = []
  await Promise.all(stores.map((s) => s.close()))
  await schema.drop()
})

/** One replica's scheduler with the cleanup job, never started: the test fires it as its timer would. */
function replica(store: Store, name: string): Scheduler {
  const logger = createLogger({ format: 'json', level: 'info', write: (line) => { if (JSON.parse(line).msg === 'cleanup finished') finished.push(name) } })
  const scheduler = createScheduler({ store, logger, now: () => clock.now() })
  scheduler.add({ name: 'cleanup', when: { everyMs: 3_600_000, atStart: true }, period: cleanupRunKey, run: async () => { await runCleanup({ store, logger, ttlDays: 30, now: () => clock.now() }) } })
  schedulers.push(scheduler)
  return scheduler
}

const message = (prNumber: number) => ({
  provider: 'github' as const, repository: 'acme/api', prNumber, channel: 'C0123ABC', ts: `${prNumber}.0001`,
  mentions: [], state: 'open', lifecycle: {} as never, lastDeliveryId: null, reactions: [],
})

describe('a job once per period across replicas', () => {
  it('two replicas firing the cleanup together run the day\'s once, later that day not at all, and the next day\'s once', async () => {
    await clock.advance(-40 * DAY)
    await stores[0]!.saveMessage(message(1))
    await clock.advance(40 * DAY)
    const [a, b] = [replica(stores[0]!, 'a'), replica(stores[1]!, 'b')]
    await Promise.all([a.fire('cleanup'), b.fire('cleanup')])
    expect(finished).toHaveLength(1)
    expect(await stores[1]!.countMessages()).toBe(0)

    // Both try again later the same day (the hourly firing, a restart's first): nothing runs.
    await clock.advance(3 * 60 * 60 * 1000)
    await Promise.all([a.fire('cleanup'), b.fire('cleanup'), replica(stores[0]!, 'a again').fire('cleanup')])
    expect(finished).toHaveLength(1)

    // The next UTC day: one run again, on whichever replica claims it.
    await clock.advance(DAY)
    await Promise.all([b.fire('cleanup'), a.fire('cleanup')])
    expect(finished).toHaveLength(2)
  })
})
