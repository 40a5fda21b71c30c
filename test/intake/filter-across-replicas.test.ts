import type { FilterMatch } from '../../src/routing/pull-request-filter.ts'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { isFiltered } from '../../src/intake/filter-intake.ts'
import { createLogger } from '../../src/log/logger.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import type { Store } from '../../src/store/store.ts'
import { prEvent } from '../machines/lifecycle-run.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'

/**
 * The intake's filter with replicas: two stores on one real PostgreSQL database (what two replicas have).
 * Replica A accepted a delivery of the pull request and its batch has not applied it yet (it may be
 * announcing the pull request right now); replica B's intake, whose own mailboxes are empty, must leave a
 * matching delivery to the batch, not drop it. Without a delivery pending anywhere, B drops it as before.
 */
let database: TestDatabase
let schema: TestDatabase
let stores: Store[] = []
const logger = createLogger({ format: 'json', level: 'error', write: () => {} })
// What the routing decision found: the entry's ignore.labels (wip) matches the pull request's label.
const WIP: FilterMatch = 'label'
const labelled = (number: number) => {
  const event = { ...prEvent('opened'), number }
  return { ...event, pr: { ...event.pr, labels: ['WIP'] } }
}

beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())
beforeEach(async () => {
  schema = await createTestSchema(database)
  const migrating = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  await postgresMigrateUp(migrating).finally(() => migrating.end())
  stores = await Promise.all([0, 1].map(async () => createPostgresStore({ pool: await openPostgresPool({ url: schema.url, onIdleError: () => {} }) })))
})
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()))
  await schema.drop()
})

describe('the intake filter across replicas', () => {
  it('leaves a matching delivery to the batch while another replica holds one of the pull request pending', async () => {
    const [a, b] = stores as [Store, Store]
    const first = { ...prEvent('opened'), number: 8 }
    expect(await a.recordDelivery({ provider: 'github', deliveryId: first.deliveryId, prKey: pullRequestKey(first), event: first })).toBe(true)
    const idle = () => false
    expect(await isFiltered({ store: b, logger, busy: idle }, WIP, labelled(8))).toBe(false)
    expect(await isFiltered({ store: b, logger, busy: idle }, WIP, labelled(9))).toBe(true)
  })
})
