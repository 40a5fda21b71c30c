import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import type { IncomingDelivery, Store } from '../../src/store/store.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'

/**
 * What PostgreSQL adds to the Store contract for replicas: several stores (servers) on one database
 * exclude each other per pull request, and take over the deliveries whose lease ran out, each one once.
 * Leases run on PostgreSQL's clock (statement_timestamp()), not a store's, so a manual clock on the stores would
 * not move them: time passes here by moving every stored time of the schema's deliveries back (`passTime`),
 * which is the database's clock moving forward for what the leases compare, with no real waiting. The lease
 * is long, so the real time the test takes never runs one out.
 */

let database: TestDatabase
let schema: TestDatabase
let stores: Store[]
beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())
beforeEach(async () => {
  schema = await createTestSchema(database)
  stores = []
})
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()))
  await schema.drop()
})

/** A store as one server would open it: its own pools on the shared database; `skewMs`: its clock is that far off. */
async function server(skewMs = 0): Promise<Store> {
  const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  await postgresMigrateUp(pool)
  const lockPool = await openPostgresPool({ url: schema.url, maxConnections: 2, onIdleError: () => {} })
  const store = createPostgresStore({ pool, lockPool, now: () => Date.now() + skewMs })
  stores.push(store)
  return store
}

const delivery = (deliveryId: string, prNumber = 7): IncomingDelivery => ({
  provider: 'github', deliveryId, prKey: `github:acme/api#${prNumber}`, event: { id: deliveryId } as never,
})
const LEASE = 60_000
/** Past a lease's end. */
const PAST_LEASE = LEASE + 150
const ids = (deliveries: Array<{ deliveryId: string }>) => deliveries.map((d) => d.deliveryId)

describe('per-pull-request locks across servers', () => {
  it('a second server waits for the pull request until the first releases it; other pull requests do not wait', async () => {
    const [a, b] = [await server(), await server()]
    const releaseA = await a.lockPullRequest('github:acme/api#7')
    const order: string[] = []
    const waiting = b.lockPullRequest('github:acme/api#7').then((release) => { order.push('b locked'); return release })
    await (await b.lockPullRequest('github:acme/api#8'))()
    // Several round trips later b still waits: a holds the lock.
    for (let i = 0; i < 5; i++) await a.pendingDeliveryStats()
    expect(order).toEqual([])
    order.push('a released')
    await releaseA()
    await (await waiting)()
    expect(order).toEqual(['a released', 'b locked'])
  })

  it('a server that closes while it waits for a lock gives the wait up instead of hanging its shutdown', async () => {
    const [a, b] = [await server(), await server()]
    const releaseA = await a.lockPullRequest('github:acme/api#7')
    const waiting = b.lockPullRequest('github:acme/api#7').then(() => 'locked', (error: Error) => error.message)
    for (let i = 0; i < 5; i++) await a.pendingDeliveryStats() // b is polling by now
    await b.close()
    expect(await waiting).toBe('the store closed while waiting for the lock of github:acme/api#7')
    await releaseA()
  })
})

describe('a batch\'s lock, taken without waiting', () => {
  const batchOf = (...deliveryIds: string[]) => ({ provider: 'github' as const, deliveryIds })

  it('is taken while one of the batch\'s deliveries is pending, is \'held\' while another server holds it, and \'applied\' once none is pending', async () => {
    const [a, b] = [await server(), await server()]
    for (const id of ['d-1', 'd-2']) await a.recordDelivery(delivery(id))
    const lock = await a.tryLockPullRequest('github:acme/api#7', batchOf('d-1'))
    if (typeof lock === 'string') throw new Error(`not locked: ${lock}`)
    expect(await b.tryLockPullRequest('github:acme/api#7', batchOf('d-2'))).toBe('held')
    await a.commitOutcome({ provider: 'github', deliveryIds: ['d-1', 'd-2'], messages: [] })
    // Nothing of b's batch is pending any more: no lock is tried, held or not.
    expect(await b.tryLockPullRequest('github:acme/api#7', batchOf('d-2'))).toBe('applied')
    await lock()
    expect(await b.tryLockPullRequest('github:acme/api#7', batchOf('d-1', 'd-2'))).toBe('applied')
    await b.recordDelivery(delivery('d-3'))
    const again = await b.tryLockPullRequest('github:acme/api#7', batchOf('d-2', 'd-3'))
    expect(typeof again).toBe('function')
    if (typeof again !== 'string') await again()
  })

  it('tells the listeners after every release, once the unlock is answered: the lock is free and what was committed before is read', async () => {
    const [a, b] = [await server(), await server()]
    const seen: Array<{ prKey: string; free: boolean; pending: string[] }> = []
    a.onLockReleased(async (prKey) => {
      // b can take the lock at once: the release is over. And b's delivery, committed while a held it, is read.
      const lock = await b.tryLockPullRequest(prKey, batchOf('d-2'))
      seen.push({ prKey, free: typeof lock === 'function', pending: ids(await a.pendingDeliveriesOf(prKey)) })
      if (typeof lock === 'function') await lock()
    })
    await a.recordDelivery(delivery('d-1'))
    const lock = await a.tryLockPullRequest('github:acme/api#7', batchOf('d-1'))
    if (typeof lock === 'string') throw new Error(`not locked: ${lock}`)
    await b.recordDelivery(delivery('d-2'))
    expect(await b.tryLockPullRequest('github:acme/api#7', batchOf('d-2'))).toBe('held')
    await lock()
    await lock() // a second release is no release: the listeners are not told again
    await (await a.lockPullRequest('github:acme/api#8'))() // any holder's release, not only a batch's
    expect(seen).toEqual([
      { prKey: 'github:acme/api#7', free: true, pending: ['d-1', 'd-2'] },
      { prKey: 'github:acme/api#8', free: true, pending: [] },
    ])
  })
})

describe('leases on pending deliveries', () => {
  it('a delivery nobody renewed is taken over once its receiver\'s lease ran out, in arrival order, by one server', async () => {
    const [a, b, c] = [await server(), await server(), await server()]
    for (const id of ['d-1', 'd-2']) await a.recordDelivery(delivery(id))
    await a.recordDelivery(delivery('d-3', 8))
    await a.commitOutcome({ provider: 'github', deliveryIds: ['d-2'], messages: [] })
    expect(await b.claimExpiredDeliveries({ owner: 'b', leaseMs: LEASE, limit: 10 })).toEqual([]) // still the receiver's
    await passTime(PAST_LEASE)
    const claimed = await b.claimExpiredDeliveries({ owner: 'b', leaseMs: LEASE, limit: 10 })
    expect(ids(claimed)).toEqual(['d-1', 'd-3']) // d-2 is applied: never claimed
    expect(claimed[0]).toMatchObject({ prKey: 'github:acme/api#7', event: { id: 'd-1' } })
    // b holds them now: c gets nothing until b stops renewing.
    expect(await c.claimExpiredDeliveries({ owner: 'c', leaseMs: LEASE, limit: 10 })).toEqual([])
    await passTime(LEASE / 2)
    await b.renewLeases({ owner: 'b', leaseMs: LEASE, provider: 'github', deliveryIds: ['d-1'] })
    await passTime(LEASE / 2 + 150)
    expect(ids(await c.claimExpiredDeliveries({ owner: 'c', leaseMs: LEASE, limit: 10 }))).toEqual(['d-3'])
  })

  it('renewing never takes a delivery another server holds, but does extend one whose lease ran out', async () => {
    const [a, b] = [await server(), await server()]
    await a.recordDelivery(delivery('d-1'))
    await passTime(PAST_LEASE)
    expect(ids(await b.claimExpiredDeliveries({ owner: 'b', leaseMs: LEASE, limit: 10 }))).toEqual(['d-1'])
    // a was only slow, not dead: its renewal leaves b's claim alone.
    await a.renewLeases({ owner: 'a', leaseMs: LEASE, provider: 'github', deliveryIds: ['d-1'] })
    await passTime(PAST_LEASE)
    expect(ids(await a.claimExpiredDeliveries({ owner: 'a', leaseMs: LEASE, limit: 10 }))).toEqual(['d-1'])
    await passTime(PAST_LEASE)
    await b.renewLeases({ owner: 'b', leaseMs: LEASE, provider: 'github', deliveryIds: ['d-1'] }) // a's lease ran out: b may renew
    expect(await a.claimExpiredDeliveries({ owner: 'a', leaseMs: LEASE, limit: 10 })).toEqual([])
  })

  it('servers sweeping at once claim every expired delivery exactly once between them (SKIP LOCKED)', async () => {
    const servers = [await server(), await server(), await server()]
    const all = Array.from({ length: 120 }, (_, i) => `d-${i}`)
    await Promise.all(all.map((id, i) => servers[0]!.recordDelivery(delivery(id, i % 17))))
    await passTime(PAST_LEASE)
    const claims = await Promise.all(servers.flatMap((s, i) => [0, 1].map(() => s.claimExpiredDeliveries({ owner: `s${i}`, leaseMs: LEASE, limit: 50 }))))
    const claimed = claims.flatMap(ids)
    expect(claimed).toHaveLength(all.length)
    expect(new Set(claimed)).toEqual(new Set(all))
  })

  it('a replica whose clock is ten minutes off neither takes a live lease nor holds one past its end (the database\'s clock decides)', async () => {
    const [a, ahead, behind] = [await server(), await server(10 * 60_000), await server(-10 * 60_000)]
    for (const id of ['d-1', 'd-2']) await a.recordDelivery(delivery(id))
    await a.renewLeases({ owner: 'a', leaseMs: LEASE, provider: 'github', deliveryIds: ['d-1'] })
    // To the replica ahead, a's lease on d-1 and its receipt of d-2 look ten minutes old: neither is taken.
    expect(await ahead.claimExpiredDeliveries({ owner: 'ahead', leaseMs: LEASE, limit: 10 })).toEqual([])
    await ahead.renewLeases({ owner: 'ahead', leaseMs: LEASE, provider: 'github', deliveryIds: ['d-1'] })
    expect(await leaseOwners()).toEqual({ 'd-1': 'a', 'd-2': null })
    await passTime(PAST_LEASE)
    // The replica behind takes them once they ran out, and its lease lasts a whole lease for the others.
    expect(ids(await behind.claimExpiredDeliveries({ owner: 'behind', leaseMs: LEASE, limit: 10 }))).toEqual(['d-1', 'd-2'])
    expect(await a.claimExpiredDeliveries({ owner: 'a', leaseMs: LEASE, limit: 10 })).toEqual([])
    await passTime(PAST_LEASE)
    expect(ids(await ahead.claimExpiredDeliveries({ owner: 'ahead', leaseMs: LEASE, limit: 10 }))).toEqual(['d-1', 'd-2'])
  })
})

/** `ms` pass on the database's clock, as the leases read it: the deliveries' received and lease times go back as much. */
async function passTime(ms: number): Promise<void> {
  const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  try {
    await pool.query('UPDATE deliveries SET received_at = received_at - $1, lease_expires_at = lease_expires_at - $1', [ms])
  } finally {
    await pool.end()
  }
}

async function leaseOwners(): Promise<Record<string, string | null>> {
  const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  try {
    const { rows } = await pool.query<{ delivery_id: string; lease_owner: string | null }>('SELECT delivery_id, lease_owner FROM deliveries ORDER BY delivery_id')
    return Object.fromEntries(rows.map((r) => [r.delivery_id, r.lease_owner]))
  } finally {
    await pool.end()
  }
}
