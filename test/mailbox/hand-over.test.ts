import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createAcksInFlight } from '../../src/mailbox/acks-in-flight.ts'
import { createDeliveries, type Deliveries } from '../../src/mailbox/create-deliveries.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createBatchRunner, type BatchRunner } from '../../src/worker/run-batch.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'

/**
 * The hand-over between replicas (src/worker/run-batch.ts): two servers' deliveries parts (mailboxes,
 * leases, the real batch runner) on one real PostgreSQL database, each with a store of its own. The batch's
 * apply is the test's: it records what it was given, commits it as applied, and can be held, so that one
 * server holds the pull request's lock for as long as the test needs. Each store's lock calls are counted.
 */

let database: TestDatabase
let schema: TestDatabase
let closing: Array<() => Promise<unknown>>
beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())
beforeEach(async () => {
  schema = await createTestSchema(database)
  closing = []
})
afterEach(async () => {
  for (const close of closing.reverse()) await close()
  await schema.drop()
})

interface Server {
  store: Store
  deliveries: Deliveries<BatchRunner>
  /** Every batch's deliveries, as apply was given them. */
  applied: string[][]
  /** tryLockPullRequest calls (a batch's one try) and lockPullRequest calls (a wait, polled). */
  tries: number
  waits: number
  /** While set, apply waits for it after it recorded its batch. */
  hold?: Promise<void>
  /** Resolved by apply as it starts waiting for `hold`. */
  onHeld?: () => void
  /** Receives a delivery: the intake's commit, then the hand-off to the mailboxes. */
  receive(event: LifecycleEvent): Promise<void>
}

const LEASE_MS = 60_000

async function server(name: string): Promise<Server> {
  const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  await postgresMigrateUp(pool)
  const lockPool = await openPostgresPool({ url: schema.url, maxConnections: 4, onIdleError: () => {} })
  const real = createPostgresStore({ pool, lockPool })
  const self: Server = {
    applied: [], tries: 0, waits: 0,
    store: Object.assign(Object.create(real) as Store, real, {
      tryLockPullRequest: (prKey: string, batch: Parameters<Store['tryLockPullRequest']>[1]) => { self.tries++; return real.tryLockPullRequest(prKey, batch) },
      lockPullRequest: (prKey: string) => { self.waits++; return real.lockPullRequest(prKey) },
    }),
    deliveries: undefined as never,
    async receive(event) {
      await self.store.recordDelivery({ provider: event.provider, deliveryId: event.deliveryId, prKey: pullRequestKey(event), event })
      self.deliveries.handOff(event)
    },
  }
  const apply = async (events: readonly LifecycleEvent[]) => {
    self.applied.push(events.map((e) => e.deliveryId))
    if (self.hold) {
      self.onHeld?.()
      await self.hold
    }
    await self.store.commitOutcome({ provider: 'github', deliveryIds: events.map((e) => e.deliveryId), messages: [] })
  }
  self.deliveries = createDeliveries({
    store: self.store, owner: name, attempts: 3, backoffMs: 1000, leaseMs: LEASE_MS, foldMs: 0, parallel: 4, parallelWhileAcking: 4,
    logger: createLogger({ format: 'json', level: 'error', write: () => {} }),
    acks: createAcksInFlight({ quietMs: 0 }),
    batches: (own) => createBatchRunner({ store: self.store, apply, repaint: async () => {}, ...own }),
  })
  closing.push(async () => {
    await self.deliveries.stop(Date.now() + 2000, () => {})
    await real.close()
  })
  return self
}

const opened = (deliveryId: string, number = 7): LifecycleEvent => {
  const decoded = hostOf('github').delivery.decode('pull_request', deliveryId, pullRequest('opened', number))
  if ('ignored' in decoded || 'check' in decoded) throw new Error('not a pull request event')
  return decoded
}

/** Holds `s`'s next batch in apply until the returned release; resolves once a batch is held there. */
function holdNextBatch(s: Server): { held: Promise<void>; release: () => void } {
  let release!: () => void
  s.hold = new Promise<void>((resolve) => { release = resolve })
  const held = new Promise<void>((resolve) => { s.onHeld = resolve })
  return { held, release: () => { s.hold = undefined; release() } }
}

const pendingIds = async (s: Server) => (await s.store.pendingDeliveriesOf(pullRequestKey(opened('x')))).map((d) => d.deliveryId)

it('a batch that finds the lock held leaves its deliveries to the holder without polling; the holder applies them after its own, each once', async () => {
  const [a, b] = [await server('a'), await server('b')]
  const holding = holdNextBatch(a)
  await a.receive(opened('d-1'))
  await holding.held
  // a holds the pull request's lock, in its batch of d-1. Its further deliveries and b's arrive alternately.
  await b.receive(opened('d-2'))
  await a.receive(opened('d-3'))
  await b.receive(opened('d-4'))
  await a.receive(opened('d-5'))
  // b's batches try once each, find the lock held and end: its mailboxes empty while a still holds the lock.
  expect(await b.deliveries.mailboxes.drain(20_000)).toBe(true)
  expect(b.waits).toBe(0)
  expect(b.tries).toBeGreaterThanOrEqual(1)
  expect(b.tries).toBeLessThanOrEqual(2) // one per batch: d-2 and d-4 arrived in one or two
  expect(b.applied).toEqual([])
  expect(b.deliveries.leases.held()).toBe(0) // its leases given up: the holder, or a sweep, has them
  expect(await pendingIds(a)).toEqual(['d-1', 'd-2', 'd-3', 'd-4', 'd-5'])

  holding.release()
  expect(await a.deliveries.mailboxes.drain(20_000)).toBe(true)
  expect(await pendingIds(a)).toEqual([])
  // a's next batch took b's deliveries with its own, in arrival order; nothing was applied twice.
  expect(a.applied).toEqual([['d-1'], ['d-2', 'd-3', 'd-4', 'd-5']])
  expect(b.applied).toEqual([])
  expect(a.waits + b.waits).toBe(0)
})

it('a batch whose deliveries another server already applied takes no lock and applies nothing', async () => {
  const [a, b] = [await server('a'), await server('b')]
  await b.store.recordDelivery({ provider: 'github', deliveryId: 'd-1', prKey: pullRequestKey(opened('d-1')), event: opened('d-1') })
  await a.receive(opened('d-2'))
  expect(await a.deliveries.mailboxes.drain(20_000)).toBe(true)
  expect(a.applied).toEqual([['d-1', 'd-2']]) // a read b's pending delivery with its own
  // b's batch of d-1 comes after: it finds nothing of it pending.
  b.deliveries.handOff(opened('d-1'))
  expect(await b.deliveries.mailboxes.drain(20_000)).toBe(true)
  expect(b.tries).toBe(1)
  expect(b.applied).toEqual([])
  expect(await lockHolders()).toBe(0)
})

it('when the holder dies, the deliveries left to it are taken over once their leases run out', async () => {
  const [a, b] = [await server('a'), await server('b')]
  const holding = holdNextBatch(a)
  await a.receive(opened('d-1'))
  await holding.held
  await b.receive(opened('d-2'))
  expect(await b.deliveries.mailboxes.drain(20_000)).toBe(true)
  expect(b.applied).toEqual([])
  // a dies holding the lock: its connections end (as with SIGKILL), and with them the lock; it renews nothing.
  await a.deliveries.leases.stop()
  await endLockConnection()
  expect(await lockHolders()).toBe(0)
  await passTime(LEASE_MS + 150)
  await b.deliveries.leases.tick()
  expect(await b.deliveries.mailboxes.drain(20_000)).toBe(true)
  expect(b.applied).toEqual([['d-1', 'd-2']])
  expect(await pendingIds(b)).toEqual([])
  holding.release()
})

async function admin<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  try {
    return (await pool.query(sql, values)).rows as T[]
  } finally {
    await pool.end()
  }
}

/** Sessions holding an advisory lock in this database. */
async function lockHolders(): Promise<number> {
  const rows = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
  return rows[0]!.n
}

/** Ends the connection holding the pull request's lock (the held batch's: the only advisory lock), and the lock with it. */
async function endLockConnection(): Promise<void> {
  const ended = await admin(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
  expect(ended).toHaveLength(1)
}

/** `ms` pass on the database's clock, as the leases read it (test/store/postgres-shared-work.test.ts). */
async function passTime(ms: number): Promise<void> {
  await admin('UPDATE deliveries SET received_at = received_at - $1, lease_expires_at = lease_expires_at - $1', [ms])
}
