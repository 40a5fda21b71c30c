import pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { hasMessage, NO_MESSAGE, type IncomingDelivery, type MessageRecord, type Store } from '../../src/store/store.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, type Backend } from '../helpers/store-backends.ts'
import { CLEANUP_SLICE_ROWS } from '../../src/store/create-store.ts'

/**
 * What every Store promises, whatever the backend: each case runs against a real SQLite file and a real
 * PostgreSQL server (test/helpers/postgres.ts), each test on a fresh, migrated database: a new SQLite file,
 * or a new schema in this file's PostgreSQL database (a schema costs milliseconds, a database ~0.1-0.7 s).
 */

let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const backends = storeBackends(() => postgresDatabase)

const pr = { provider: 'github', repository: 'acme/api', prNumber: 7 } as const
const message = (over: Partial<MessageRecord> = {}): MessageRecord => ({
  ...pr, channel: 'C0123ABC', ts: '1712345678.000100', mentions: ['<@U1>', '<!subteam^S1>'], state: 'open',
  lifecycle: { state: 'open', approvals: [] } as never, lastDeliveryId: 'd-1', reactions: ['eyes', 'white_check_mark'], ...over,
})
const delivery = (deliveryId: string, over: Partial<IncomingDelivery> = {}): IncomingDelivery => ({
  provider: 'github', deliveryId, prKey: 'github:acme/api#7', event: { type: 'opened', id: deliveryId } as never, ...over,
})

/**
 * Returns once a lock that must wait has been tried: on PostgreSQL, when more sessions than the `holders`
 * have the advisory try-lock as their last statement (the waiter's too), and one round trip later, so the
 * waiter's answer is in; in a SQLite store's own process, after the turn in which a free lock would have
 * been taken.
 */
async function triedToLock(url: string | undefined, holders: number): Promise<void> {
  if (url === undefined) return new Promise((resolve) => setImmediate(resolve))
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const sql = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle' AND query LIKE 'SELECT pg_try_advisory_lock%'"
    while ((await client.query<{ n: number }>(sql)).rows[0]!.n <= holders) await new Promise((resolve) => setImmediate(resolve))
    await client.query('SELECT 1')
  } finally {
    await client.end()
  }
}

describe.each(backends)('Store contract: $name', (backend) => {
  let clock: number
  let db: Awaited<ReturnType<Backend['create']>>
  let store: Store
  const now = () => clock
  const markApplied = (provider: 'github' | 'bitbucket', deliveryId: string) => store.commitOutcome({ provider, deliveryIds: [deliveryId], messages: [] })

  beforeEach(async () => {
    clock = Date.UTC(2026, 0, 31, 12)
    db = await backend.create()
    store = await db.open(now)
  })
  afterEach(async () => {
    await store.close()
    await db.remove()
  })

  describe('messages', () => {
    it('finds nothing for a pull request without a message', async () => {
      expect(await store.findMessages(pr)).toEqual([])
      expect(await store.countMessages()).toBe(0)
    })

    it('saves a message and finds it back with every field, stamped with the clock', async () => {
      await store.saveMessage(message())
      expect(await store.findMessages(pr)).toEqual([{ ...message(), createdAt: clock, touchedAt: clock }])
      await store.saveMessage(message({ prNumber: 8, lastDeliveryId: null, mentions: [], reactions: [] }))
      expect(await store.findMessages({ ...pr, prNumber: 8 })).toEqual([
        { ...message({ prNumber: 8, lastDeliveryId: null, mentions: [], reactions: [] }), createdAt: clock, touchedAt: clock },
      ])
      expect(await store.countMessages()).toBe(2)
    })

    it('saving the same channel again replaces the row, keeps created_at and bumps touched_at', async () => {
      const created = clock
      await store.saveMessage(message())
      clock += 60_000
      const edited = message({ ts: '1712345999.000200', mentions: ['<@U2>'], state: 'merged', lifecycle: { state: 'merged' } as never, lastDeliveryId: 'd-2', reactions: ['merged'] })
      await store.saveMessage(edited)
      expect(await store.findMessages(pr)).toEqual([{ ...edited, createdAt: created, touchedAt: clock }])
      expect(await store.countMessages()).toBe(1)
    })

    it('keeps one row per channel, oldest first, then by channel id byte-wise', async () => {
      await store.saveMessage(message({ channel: 'Cb' }))
      await store.saveMessage(message({ channel: 'CB' }))
      await store.saveMessage(message({ channel: 'C1' }))
      clock += 1
      await store.saveMessage(message({ channel: 'CA' }))
      clock += 1
      await store.saveMessage(message({ channel: 'Cb', state: 'closed' })) // a touch does not reorder
      const found = await store.findMessages(pr)
      expect(found.map((m) => m.channel)).toEqual(['C1', 'CB', 'Cb', 'CA'])
      expect(found.find((m) => m.channel === 'Cb')?.state).toBe('closed')
    })

    it('keeps a lifecycle row without a Slack message (empty channel and ts), first among the rows', async () => {
      await store.saveMessage(message({ channel: 'C1' }))
      await store.saveMessage(message({ ...NO_MESSAGE, state: 'ended' }))
      const found = await store.findMessages(pr)
      expect(found.map((m) => [m.channel, m.ts, m.state])).toEqual([['', '', 'ended'], ['C1', '1712345678.000100', 'open']])
      expect(found.map(hasMessage)).toEqual([false, true])
    })

    it('keys a pull request by provider, repository and number', async () => {
      await store.saveMessage(message())
      expect(await store.findMessages({ ...pr, provider: 'bitbucket' })).toEqual([])
      expect(await store.findMessages({ ...pr, repository: 'acme/web' })).toEqual([])
      expect(await store.findMessages({ ...pr, repository: 'ACME/API' })).toEqual([])
      expect(await store.findMessages({ ...pr, prNumber: 70 })).toEqual([])
      await store.saveMessage(message({ provider: 'bitbucket', ts: '99.1' }))
      expect((await store.findMessages(pr)).map((m) => m.ts)).toEqual(['1712345678.000100'])
      expect((await store.findMessages({ ...pr, provider: 'bitbucket' })).map((m) => m.ts)).toEqual(['99.1'])
    })

    it('keeps text exactly: unicode, quotes and escaped NUL in the lifecycle JSON', async () => {
      const lifecycle = { title: 'Fix “quotes” \'n\' emoji 🚀 and a\u0000NUL', big: 'x'.repeat(100_000) } as never
      await store.saveMessage(message({ lifecycle, mentions: ['<@Ü>'] }))
      const [found] = await store.findMessages(pr)
      expect(found?.lifecycle).toEqual(lifecycle)
      expect(found?.mentions).toEqual(['<@Ü>'])
    })

    it('deletes only rows untouched since the cutoff and says how many', async () => {
      await store.saveMessage(message({ prNumber: 1 }))
      clock += 1000
      await store.saveMessage(message({ prNumber: 2 }))
      const cutoff = clock
      clock += 1000
      await store.saveMessage(message({ prNumber: 3 }))
      expect((await store.forgetBefore(cutoff)).messages).toBe(1) // touched exactly at the cutoff stays
      expect(await store.countMessages()).toBe(2)
      expect(await store.findMessages({ ...pr, prNumber: 1 })).toEqual([])
      expect(await store.findMessages({ ...pr, prNumber: 2 })).toHaveLength(1)
      expect((await store.forgetBefore(cutoff)).messages).toBe(0)
    })

    it('deletes more rows than one slice holds, every one of them, and keeps the rows after the cutoff', async () => {
      const old = 2 * CLEANUP_SLICE_ROWS + 1
      await Promise.all(Array.from({ length: old }, (_, i) => store.saveMessage(message({ prNumber: 1000 + i }))))
      clock += 1000
      const cutoff = clock
      await Promise.all([1, 2, 3].map((prNumber) => store.saveMessage(message({ prNumber }))))
      expect((await store.forgetBefore(cutoff)).messages).toBe(old)
      expect(await store.countMessages()).toBe(3)
    })
  })

  describe('reviewer assignments', () => {
    const pr = { provider: 'github', repository: 'acme/api', prNumber: 7 }
    it('keeps the first decision of a pull request, whoever claims after it, and forgets it before the cutoff', async () => {
      const first = await store.claimAssignment({ ...pr, teamKey: 'github acme backend', reviewers: ['dave'], said: 'Assigned dave (round robin)', decidedAt: clock })
      const second = await store.claimAssignment({ ...pr, teamKey: 'github acme backend', reviewers: ['erin'], said: 'Assigned erin (round robin)', decidedAt: clock + 1 })
      expect(second).toEqual(first)
      expect(second).toMatchObject({ reviewers: ['dave'], requestedAt: null })
      await store.markRequested(pr, clock + 5)
      expect((await store.assignmentOf(pr))?.requestedAt).toBe(clock + 5)
      expect((await store.lastAssignment('github acme backend'))?.reviewers).toEqual(['dave'])
      clock += 1000
      expect((await store.forgetBefore(clock)).runClaims).toBe(1)
      expect(await store.assignmentOf(pr)).toBeUndefined()
    })

    it('keeps a person\'s away mark until they end it', async () => {
      await store.setAway('U0ERIN0001', '2026-12-24', clock)
      expect(await store.awayUntil('U0ERIN0001')).toBe('2026-12-24')
      await store.setAway('U0ERIN0001', undefined, clock)
      expect(await store.awayUntil('U0ERIN0001')).toBeUndefined()
    })
  })

  describe("Slack's request ids", () => {
    it('takes an id once, on both engines, and forgets it only before the replay cutoff', async () => {
      expect(await store.claimSlackRequest('event:Ev1')).toBe(true)
      expect(await store.claimSlackRequest('event:Ev1')).toBe(false)
      clock += 1000
      const cutoff = clock
      expect(await store.claimSlackRequest('trigger:T1')).toBe(true) // taken exactly at the cutoff: stays
      expect((await store.forgetBefore(cutoff + 5000, cutoff)).slackRequests).toBe(1)
      expect(await store.claimSlackRequest('event:Ev1')).toBe(true)
      expect(await store.claimSlackRequest('trigger:T1')).toBe(false)
    })

    it('releases one id whose handler failed, and only that one', async () => {
      expect(await store.claimSlackRequest('trigger:T1')).toBe(true)
      expect(await store.claimSlackRequest('trigger:T2')).toBe(true)
      await store.releaseSlackRequest('trigger:T1')
      expect(await store.claimSlackRequest('trigger:T1')).toBe(true)
      expect(await store.claimSlackRequest('trigger:T2')).toBe(false)
    })
  })

  describe('durable intake', () => {
    it('records a delivery once per provider and delivery id', async () => {
      expect(await store.recordDelivery(delivery('d-1'))).toBe(true)
      expect(await store.recordDelivery(delivery('d-1', { event: { changed: true } as never }))).toBe(false)
      expect(await store.recordDelivery(delivery('d-1', { provider: 'bitbucket', prKey: 'bitbucket:acme/api#7' }))).toBe(true)
      expect((await store.pendingDeliveryStats()).count).toBe(2)
      const [first] = await store.pendingDeliveries()
      expect(first?.event).toEqual(delivery('d-1').event) // a duplicate never overwrites the first
    })

    it('refuses a body that came under another delivery id (a replay), and takes the same id and body (a redelivery) as a duplicate', async () => {
      const body = (id: string, digest = 'ab'.repeat(32)) => ({ digest, deliveryId: id })
      expect(await store.recordDelivery(delivery('d-1', { body: body('d-1') }))).toBe(true)
      expect(await store.recordDelivery(delivery('d-9', { body: body('d-9') }))).toBe(false)
      expect(await store.recordDelivery(delivery('d-1', { body: body('d-1') }))).toBe(false)
      expect(await store.firstDeliveryOfBody('github', 'ab'.repeat(32))).toBe('d-1')
      expect(await store.firstDeliveryOfBody('bitbucket', 'ab'.repeat(32))).toBeUndefined()
      // A check result: one body, a delivery per pull request under the host's id.
      expect(await store.recordDelivery(delivery('c-1#7', { body: body('c-1', 'cd'.repeat(32)) }))).toBe(true)
      expect(await store.recordDelivery(delivery('c-1#8', { body: body('c-1', 'cd'.repeat(32)) }))).toBe(true)
      expect(await store.recordDelivery(delivery('c-2#7', { body: body('c-2', 'cd'.repeat(32)) }))).toBe(false)
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-1', 'c-1#7', 'c-1#8'])
    })

    it('keeps applied ids and body digests until the replay cutoff, whatever the message cutoff', async () => {
      await store.recordDelivery(delivery('d-1', { body: { digest: 'ef'.repeat(32), deliveryId: 'd-1' } }))
      await markApplied('github', 'd-1')
      clock += 1_000
      const forgotten = await store.forgetBefore(clock, clock - 2_000)
      expect(forgotten).toMatchObject({ deliveries: 0, bodies: 0 })
      expect(await store.recordDelivery(delivery('d-2', { body: { digest: 'ef'.repeat(32), deliveryId: 'd-2' } }))).toBe(false)
      expect(await store.forgetBefore(clock, clock)).toMatchObject({ deliveries: 1, bodies: 1 })
      expect(await store.recordDelivery(delivery('d-2', { body: { digest: 'ef'.repeat(32), deliveryId: 'd-2' } }))).toBe(true)
    })

    it('lists pending deliveries in arrival order with every field', async () => {
      const received: number[] = []
      for (const id of ['d-3', 'd-1', 'd-2']) {
        received.push(clock)
        await store.recordDelivery(delivery(id, { prKey: `github:acme/api#${id}` }))
        clock += 10
      }
      const pending = await store.pendingDeliveries()
      expect(pending.map((d) => d.deliveryId)).toEqual(['d-3', 'd-1', 'd-2'])
      expect(pending.map((d) => d.receivedAt)).toEqual(received)
      expect(pending[1]).toMatchObject({ provider: 'github', deliveryId: 'd-1', prKey: 'github:acme/api#d-1', event: delivery('d-1').event })
      const seqs = pending.map((d) => d.seq)
      expect(seqs.every((s) => Number.isSafeInteger(s))).toBe(true)
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs)
      expect(new Set(seqs).size).toBe(3)
    })

    it('an applied delivery leaves a delivery off the pending list but keeps it a duplicate', async () => {
      await store.recordDelivery(delivery('d-1'))
      await store.recordDelivery(delivery('d-2'))
      await markApplied('github', 'd-1')
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-2'])
      expect((await store.pendingDeliveryStats()).count).toBe(1)
      expect(await store.recordDelivery(delivery('d-1'))).toBe(false)
      expect((await store.pendingDeliveryStats()).count).toBe(1)
    })

    it('pendingDeliveryStats counts pending deliveries and gives the oldest one\'s arrival, across providers', async () => {
      expect(await store.pendingDeliveryStats()).toEqual({ count: 0, oldestReceivedAt: undefined, parked: 0 })
      const first = clock
      await store.recordDelivery(delivery('d-1'))
      clock += 5_000
      await store.recordDelivery(delivery('d-2', { provider: 'bitbucket', prKey: 'bitbucket:acme/api#7' }))
      clock += 5_000
      await store.recordDelivery(delivery('d-3'))
      expect(await store.pendingDeliveryStats()).toEqual({ count: 3, oldestReceivedAt: first, parked: 0 })
      await markApplied('github', 'd-1')
      expect(await store.pendingDeliveryStats()).toEqual({ count: 2, oldestReceivedAt: first + 5_000, parked: 0 })
      await markApplied('bitbucket', 'd-2')
      await markApplied('github', 'd-3')
      expect(await store.pendingDeliveryStats()).toEqual({ count: 0, oldestReceivedAt: undefined, parked: 0 })
    })

    it('a pull request\'s failed batches are counted; at the limit its pending deliveries are parked (kept, not pending) until replayed', async () => {
      await store.recordDelivery(delivery('d-1'))
      await store.recordDelivery(delivery('d-2'))
      await store.recordDelivery(delivery('d-3', { prKey: 'github:acme/api#8' }))
      expect(await store.recordFailedBatch('github:acme/api#7', 2)).toBe(0)
      expect(await store.recordFailedBatch('github:acme/api#7', 2)).toBe(2)
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-3'])
      expect(await store.pendingDeliveriesOf('github:acme/api#7')).toEqual([])
      expect(await store.claimExpiredDeliveries({ owner: 'other', leaseMs: 1, limit: 10 }).then((c) => c.map((d) => d.deliveryId))).not.toContain('d-1')
      expect(await store.pendingDeliveryStats()).toMatchObject({ count: 1, parked: 2 })
      expect(await store.recordDelivery(delivery('d-1'))).toBe(false) // still a duplicate while parked
      expect(await store.replayParked()).toBe(2)
      expect((await store.pendingDeliveriesOf('github:acme/api#7')).map((d) => d.deliveryId)).toEqual(['d-1', 'd-2'])
      expect(await store.pendingDeliveryStats()).toMatchObject({ count: 3, parked: 0 })
      // Attempts start again from zero after a replay.
      expect(await store.recordFailedBatch('github:acme/api#7', 2)).toBe(0)
    })

    it('applying is per provider and ignores an unknown delivery id', async () => {
      await store.recordDelivery(delivery('d-1'))
      await markApplied('bitbucket', 'd-1')
      await markApplied('github', 'no-such-delivery')
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-1'])
    })

    it('commitOutcome saves the rows and applies the deliveries together, as saveMessage would', async () => {
      const created = clock
      await store.saveMessage(message({ channel: 'C1' }))
      await store.recordDelivery(delivery('d-1'))
      await store.recordDelivery(delivery('d-2'))
      await store.recordDelivery(delivery('d-3'))
      clock += 5000
      const merged = message({ channel: 'C1', state: 'merged', lastDeliveryId: 'd-2', reactions: ['merged'] })
      const second = message({ channel: 'C2', ts: '2.2', lastDeliveryId: 'd-2' })
      await store.commitOutcome({ provider: 'github', deliveryIds: ['d-1', 'd-2'], messages: [merged, second] })
      expect(await store.findMessages(pr)).toEqual([
        { ...merged, createdAt: created, touchedAt: clock },
        { ...second, createdAt: clock, touchedAt: clock },
      ])
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-3'])
      expect(await store.recordDelivery(delivery('d-2'))).toBe(false)
    })

    it('commitOutcome that fails commits nothing: every delivery stays pending, every row as it was', async () => {
      await store.saveMessage(message({ channel: 'C1' }))
      await store.recordDelivery(delivery('d-1'))
      await store.recordDelivery(delivery('d-2'))
      clock += 5000
      const broken = { ...message({ channel: 'C2' }), ts: null as unknown as string } // violates NOT NULL
      const outcome = { provider: 'github' as const, deliveryIds: ['d-1', 'd-2'], messages: [message({ channel: 'C1', state: 'merged' }), broken] }
      await expect(store.commitOutcome(outcome)).rejects.toThrow()
      expect(await store.findMessages(pr)).toEqual([{ ...message({ channel: 'C1' }), createdAt: clock - 5000, touchedAt: clock - 5000 }])
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-1', 'd-2'])
      // The store goes on working after the failed commit.
      await store.commitOutcome({ ...outcome, messages: [] })
      expect((await store.pendingDeliveryStats()).count).toBe(0)
    })

    it('an empty commitOutcome changes nothing', async () => {
      await store.recordDelivery(delivery('d-1'))
      await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [] })
      expect((await store.pendingDeliveryStats()).count).toBe(1)
      expect(await store.countMessages()).toBe(0)
    })

    it('forgets applied delivery ids older than the cutoff, never a pending one', async () => {
      await store.recordDelivery(delivery('old-applied'))
      await store.recordDelivery(delivery('old-pending'))
      await markApplied('github', 'old-applied')
      clock += 1000
      const cutoff = clock
      await store.recordDelivery(delivery('new-applied'))
      await markApplied('github', 'new-applied')
      clock += 1000
      expect((await store.forgetBefore(cutoff)).deliveries).toBe(1)
      expect((await store.forgetBefore(clock + 1)).deliveries).toBe(1)
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['old-pending'])
      // Forgotten ids are no longer duplicates (that is the trade-off of forgetting them).
      expect(await store.recordDelivery(delivery('old-applied'))).toBe(true)
      expect(await store.recordDelivery(delivery('old-pending'))).toBe(false)
    })

    it('of concurrent deliveries with one id exactly one is recorded', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => store.recordDelivery(delivery('same'))))
      expect(results.filter(Boolean)).toHaveLength(1)
      expect((await store.pendingDeliveryStats()).count).toBe(1)
    })

    it('records every one of many concurrent deliveries, each with its own seq', async () => {
      const ids = Array.from({ length: 50 }, (_, i) => `d-${i}`)
      expect(await Promise.all(ids.map((id) => store.recordDelivery(delivery(id))))).toEqual(ids.map(() => true))
      const pending = await store.pendingDeliveries()
      expect(new Set(pending.map((d) => d.deliveryId))).toEqual(new Set(ids))
      expect(new Set(pending.map((d) => d.seq)).size).toBe(50)
    })

    it('a new store on the same database sees what the closed one wrote', async () => {
      await store.saveMessage(message())
      await store.recordDelivery(delivery('d-1'))
      await store.recordDelivery(delivery('d-2'))
      await markApplied('github', 'd-1')
      await store.close()
      await store.close() // closing twice is harmless
      store = await db.open(now)
      expect(await store.findMessages(pr)).toEqual([{ ...message(), createdAt: clock, touchedAt: clock }])
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-2'])
      expect(await store.recordDelivery(delivery('d-1'))).toBe(false)
    })
  })

  describe('work shared between servers (docs/architecture.md)', () => {
    const lease = { owner: 'replica-a', leaseMs: 10_000 }

    it('lists the pending deliveries of one pull request in arrival order, without applied ones or other pull requests', async () => {
      await store.recordDelivery(delivery('d-2'))
      await store.recordDelivery(delivery('other', { prKey: 'github:acme/api#8' }))
      await store.recordDelivery(delivery('d-1'))
      await store.recordDelivery(delivery('d-3'))
      await markApplied('github', 'd-3')
      const pending = await store.pendingDeliveriesOf('github:acme/api#7')
      expect(pending.map((d) => d.deliveryId)).toEqual(['d-2', 'd-1'])
      expect(pending[0]).toMatchObject({ provider: 'github', prKey: 'github:acme/api#7', event: delivery('d-2').event, receivedAt: clock })
      expect(await store.pendingDeliveriesOf('github:acme/api#9')).toEqual([])
    })

    it('locks a pull request: a second holder waits until the first releases, another pull request does not', async () => {
      const events: string[] = []
      const release = await store.lockPullRequest('github:acme/api#7')
      const other = await store.lockPullRequest('github:acme/api#8') // another pull request is not in the way
      const second = store.lockPullRequest('github:acme/api#7').then((r) => { events.push('second holds'); return r })
      await triedToLock(db.url, 2)
      events.push('first releases')
      await release()
      const releaseSecond = await second
      await release() // releasing twice is harmless: it frees no later holder
      const third = store.lockPullRequest('github:acme/api#7').then((r) => { events.push('third holds'); return r })
      await triedToLock(db.url, 2)
      events.push('second releases')
      await releaseSecond()
      await (await third)()
      await other()
      expect(events).toEqual(['first releases', 'second holds', 'second releases', 'third holds'])
      await (await store.lockPullRequest('github:acme/api#7'))()
    })

    it('never hands out a delivery whose lease its server keeps renewing', async () => {
      await store.recordDelivery(delivery('d-1'))
      for (let round = 0; round < 3; round++) {
        clock += lease.leaseMs - 1
        await store.renewLeases({ ...lease, provider: 'github', deliveryIds: ['d-1'] })
        expect(await store.claimExpiredDeliveries({ owner: 'replica-b', leaseMs: lease.leaseMs, limit: 10 })).toEqual([])
      }
      expect((await store.pendingDeliveryStats()).count).toBe(1)
    })
  })

  describe('reconcile (15.3)', () => {
    it('lists each pull request shown as open or draft once, by repository then number, for one provider', async () => {
      await store.saveMessage(message({ repository: 'acme/web', prNumber: 3 }))
      await store.saveMessage(message({ prNumber: 9, state: 'draft' }))
      await store.saveMessage(message({ prNumber: 9, state: 'draft', channel: 'C0999ZZZ' }))
      await store.saveMessage(message({ prNumber: 2 }))
      await store.saveMessage(message({ prNumber: 4, state: 'merged' }))
      await store.saveMessage(message({ prNumber: 5, state: 'closed' }))
      await store.saveMessage(message({ prNumber: 6, ...NO_MESSAGE, state: 'ended' }))
      await store.saveMessage(message({ provider: 'bitbucket', prNumber: 1 }))
      expect(await store.openPullRequests({ provider: 'github' })).toEqual([
        { ...pr, prNumber: 2 }, { ...pr, prNumber: 9 }, { ...pr, repository: 'acme/web', prNumber: 3 },
      ])
      expect(await store.openPullRequests({ provider: 'bitbucket' })).toEqual([{ ...pr, provider: 'bitbucket', prNumber: 1 }])
    })

    it('narrows the list to one repository, and to rows touched since a time', async () => {
      await store.saveMessage(message({ prNumber: 1 }))
      await store.saveMessage(message({ repository: 'acme/web', prNumber: 2 }))
      clock += 60_000
      await store.saveMessage(message({ prNumber: 3 }))
      expect(await store.openPullRequests({ provider: 'github', repository: 'acme/web' })).toEqual([{ ...pr, repository: 'acme/web', prNumber: 2 }])
      expect(await store.openPullRequests({ provider: 'github', touchedSince: clock })).toEqual([{ ...pr, prNumber: 3 }])
      expect(await store.openPullRequests({ provider: 'github', repository: 'acme/api', touchedSince: clock - 60_000 })).toEqual([
        { ...pr, prNumber: 1 }, { ...pr, prNumber: 3 },
      ])
    })

    it('keeps one delivery-log mark per webhook, replaced by the next', async () => {
      expect(await store.hookDeliveryMark('github', 'acme/api#12')).toBeUndefined()
      await store.saveHookDeliveryMark('github', 'acme/api#12', { deliveredAt: '2026-11-23T08:00:00Z', deliveryId: '1001' })
      await store.saveHookDeliveryMark('github', 'acme/web#13', { deliveredAt: '2026-11-23T09:00:00Z', deliveryId: '2001' })
      await store.saveHookDeliveryMark('github', 'acme/api#12', { deliveredAt: '2026-11-23T10:00:00Z', deliveryId: '1002' })
      expect(await store.hookDeliveryMark('github', 'acme/api#12')).toEqual({ deliveredAt: '2026-11-23T10:00:00Z', deliveryId: '1002' })
      expect(await store.hookDeliveryMark('github', 'acme/web#13')).toEqual({ deliveredAt: '2026-11-23T09:00:00Z', deliveryId: '2001' })
      expect(await store.hookDeliveryMark('bitbucket', 'acme/api#12')).toBeUndefined()
    })
  })

  describe('post intents (11.10) and forgetting rows', () => {
    const intent = { ...pr, channel: 'C0123ABC', marker: 'd-1', mentions: ['<@U1>'], state: 'unannounced', lifecycle: {} as never, lastDeliveryId: null, reactions: [], createdAt: Date.UTC(2026, 0, 31, 11) }

    it('records, finds, lists and replaces an intent; reads it back without reactions', async () => {
      await store.recordPostIntent(intent)
      expect(await store.findPostIntent(pr, 'C0123ABC')).toEqual(intent)
      expect(await store.findPostIntent(pr, 'C0OTHER')).toBeUndefined()
      await store.recordPostIntent({ ...intent, marker: 'd-2' })
      expect((await store.postIntents()).map((i) => i.marker)).toEqual(['d-2'])
    })

    it('says whether a post recorded after a time is in flight in a channel', async () => {
      await store.recordPostIntent(intent)
      expect(await store.postInFlight('C0123ABC', intent.createdAt - 1)).toBe(true)
      expect(await store.postInFlight('C0123ABC', intent.createdAt)).toBe(false)
      expect(await store.postInFlight('C0OTHER', intent.createdAt - 1)).toBe(false)
    })

    it('completing an intent saves the message and drops the intent together; dropping needs the same marker', async () => {
      await store.recordPostIntent(intent)
      await store.dropPostIntent(pr, 'C0123ABC', 'another-marker')
      expect(await store.postIntents()).toHaveLength(1)
      await store.completePostIntent(message({ reactions: [] }))
      expect(await store.postIntents()).toEqual([])
      expect((await store.findMessages(pr)).map((m) => m.ts)).toEqual([message().ts])
      await store.recordPostIntent(intent)
      await store.dropPostIntent(pr, 'C0123ABC', 'd-1')
      expect(await store.postIntents()).toEqual([])
    })
  })
  describe('thread replies and head commits (14.3, 14.4)', () => {
    const reply = { ...pr, channel: 'C0123ABC', replyKey: 'd-1:approved', createdAt: Date.UTC(2026, 0, 31, 11) }

    it('records an intent, completes it with its ts, and never lets a later intent or a drop undo a posted reply', async () => {
      expect(await store.findThreadReply(pr, 'C0123ABC', 'd-1:approved')).toBeUndefined()
      await store.recordThreadReplyIntent(reply)
      expect(await store.findThreadReply(pr, 'C0123ABC', 'd-1:approved')).toEqual({ ...reply, ts: null })
      await store.recordThreadReplyIntent({ ...reply, createdAt: reply.createdAt + 5 })
      expect(await store.findThreadReply(pr, 'C0123ABC', 'd-1:approved')).toEqual({ ...reply, ts: null, createdAt: reply.createdAt + 5 })
      await store.completeThreadReply(pr, 'C0123ABC', 'd-1:approved', '1712345678.000200')
      await store.recordThreadReplyIntent({ ...reply, createdAt: reply.createdAt + 9 })
      await store.dropThreadReplyIntent(pr, 'C0123ABC', 'd-1:approved')
      expect(await store.findThreadReply(pr, 'C0123ABC', 'd-1:approved')).toEqual({ ...reply, ts: '1712345678.000200', createdAt: reply.createdAt + 5 })
      // A link to that message finds the reply, for its pull request and channel only.
      expect(await store.threadReplyAt(pr, 'C0123ABC', '1712345678.000200')).toEqual({ ...reply, ts: '1712345678.000200', createdAt: reply.createdAt + 5 })
      expect(await store.threadReplyAt({ ...pr, prNumber: 8 }, 'C0123ABC', '1712345678.000200')).toBeUndefined()
      expect(await store.threadReplyAt(pr, 'C0OTHER', '1712345678.000200')).toBeUndefined()
    })

    it('keys a reply by pull request, channel and reply key; drops an intent; ages records out', async () => {
      await store.recordThreadReplyIntent(reply)
      expect(await store.findThreadReply(pr, 'C0OTHER', 'd-1:approved')).toBeUndefined()
      expect(await store.findThreadReply({ ...pr, prNumber: 8 }, 'C0123ABC', 'd-1:approved')).toBeUndefined()
      expect(await store.findThreadReply(pr, 'C0123ABC', 'd-1:merged')).toBeUndefined()
      await store.dropThreadReplyIntent(pr, 'C0123ABC', 'd-1:approved')
      expect(await store.findThreadReply(pr, 'C0123ABC', 'd-1:approved')).toBeUndefined()
      await store.recordThreadReplyIntent(reply)
      await store.recordThreadReplyIntent({ ...reply, replyKey: 'd-2:merged', createdAt: reply.createdAt + 10 })
      await store.saveHead(pr, 'abc123') // seen at `clock`, after both replies
      expect((await store.forgetBefore(reply.createdAt + 1)).threadRecords).toBe(1)
      expect(await store.findThreadReply(pr, 'C0123ABC', 'd-2:merged')).toMatchObject({ replyKey: 'd-2:merged' })
      expect(await store.pullRequestsWithHead('github', 'acme/api', 'abc123')).toEqual([7])
      expect((await store.forgetBefore(clock + 1)).threadRecords).toBe(2)
      expect(await store.pullRequestsWithHead('github', 'acme/api', 'abc123')).toEqual([])
    })

    it('records a delivery and its head commit in one write, the head bumped for a duplicate too', async () => {
      expect(await store.recordDelivery(delivery('d-1'), { pr, sha: 'abc123' })).toBe(true)
      expect(await store.pullRequestsWithHead('github', 'acme/api', 'abc123')).toEqual([7])
      expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['d-1'])
      expect(await store.recordDelivery(delivery('d-1'), { pr: { ...pr, prNumber: 8 }, sha: 'abc123' })).toBe(false)
      expect(await store.pullRequestsWithHead('github', 'acme/api', 'abc123')).toEqual([7, 8])
      clock += 1
      expect(await store.recordDelivery(delivery('d-2'), { pr, sha: 'abc123' })).toBe(true)
      // Seen again at `clock`: a cleanup up to the first sighting keeps the head.
      expect((await store.forgetBefore(clock)).threadRecords).toBe(1)
      expect(await store.pullRequestsWithHead('github', 'acme/api', 'abc123')).toEqual([7])
    })

    it('maps a head commit back to every pull request of the repository that had it, and no other', async () => {
      await store.saveHead(pr, 'abc123')
      await store.saveHead(pr, 'abc123')
      await store.saveHead({ ...pr, prNumber: 3 }, 'abc123')
      await store.saveHead(pr, 'def456')
      await store.saveHead({ ...pr, repository: 'acme/web' }, 'abc123')
      await store.saveHead({ ...pr, provider: 'bitbucket' }, 'abc123')
      expect(await store.pullRequestsWithHead('github', 'acme/api', 'abc123')).toEqual([3, 7])
      expect(await store.pullRequestsWithHead('github', 'acme/api', 'def456')).toEqual([7])
      expect(await store.pullRequestsWithHead('github', 'acme/api', '000000')).toEqual([])
    })
  })

  describe('person look-ups (slack.lookup_users_by_email)', () => {
    it('finds nothing, then saves, finds and replaces a login\'s look-up', async () => {
      expect(await store.findPersonLookup('github', 'octocat')).toBeUndefined()
      const found = { provider: 'github', login: 'octocat', outcome: 'found', slackUserId: 'U0OCTO', expiresAt: Date.UTC(2026, 1, 7) } as const
      await store.savePersonLookup(found)
      expect(await store.findPersonLookup('github', 'octocat')).toEqual(found)
      const failed = { provider: 'github', login: 'octocat', outcome: 'failed', slackUserId: undefined, expiresAt: Date.UTC(2026, 0, 31, 13) } as const
      await store.savePersonLookup(failed)
      expect(await store.findPersonLookup('github', 'octocat')).toEqual(failed)
      await store.savePersonLookup({ provider: 'github', login: 'dave', outcome: 'not_found', slackUserId: undefined, expiresAt: 1 })
      expect(await store.findPersonLookup('github', 'dave')).toEqual({ provider: 'github', login: 'dave', outcome: 'not_found', slackUserId: undefined, expiresAt: 1 })
      expect(await store.findPersonLookup('github', 'octocat')).toEqual(failed)
    })

    it('keys a look-up by host and login: the same login on two hosts is two people', async () => {
      await store.savePersonLookup({ provider: 'github', login: 'alice', outcome: 'found', slackUserId: 'U0ALICE', expiresAt: 1 })
      await store.savePersonLookup({ provider: 'gitlab', login: 'alice', outcome: 'found', slackUserId: 'U0OTHER', expiresAt: 1 })
      expect((await store.findPersonLookup('github', 'alice'))?.slackUserId).toBe('U0ALICE')
      expect((await store.findPersonLookup('gitlab', 'alice'))?.slackUserId).toBe('U0OTHER')
      expect(await store.findPersonLookup('bitbucket', 'alice')).toBeUndefined()
    })

    it('reads the cache backwards: the logins found to be a Slack user on each host, expired or not, never a failed one', async () => {
      await store.savePersonLookup({ provider: 'github', login: 'octocat', outcome: 'found', slackUserId: 'U0OCTO', expiresAt: 1 })
      await store.savePersonLookup({ provider: 'github', login: 'octo-work', outcome: 'found', slackUserId: 'U0OCTO', expiresAt: Date.UTC(2026, 1, 7) })
      await store.savePersonLookup({ provider: 'gitlab', login: 'octo', outcome: 'found', slackUserId: 'U0OCTO', expiresAt: 1 })
      await store.savePersonLookup({ provider: 'github', login: 'dave', outcome: 'found', slackUserId: 'U0DAVE', expiresAt: 1 })
      expect(await store.loginsOfSlackUser('U0OCTO')).toEqual([
        { provider: 'github', login: 'octo-work' }, { provider: 'github', login: 'octocat' }, { provider: 'gitlab', login: 'octo' },
      ])
      await store.savePersonLookup({ provider: 'github', login: 'octocat', outcome: 'failed', slackUserId: undefined, expiresAt: 1 })
      expect(await store.loginsOfSlackUser('U0OCTO')).toEqual([{ provider: 'github', login: 'octo-work' }, { provider: 'gitlab', login: 'octo' }])
      expect(await store.loginsOfSlackUser('U0NOBODY')).toEqual([])
    })
  })

  describe('once-per-run claims', () => {
    it('claims a run once; another job or another run key is a claim of its own', async () => {
      expect(await store.claimRun('digest:0 9 * * 1-5', '2026-11-23')).toBe(true)
      expect(await store.claimRun('digest:0 9 * * 1-5', '2026-11-23')).toBe(false)
      expect(await store.claimRun('digest:0 9 * * 1-5', '2026-11-24')).toBe(true)
      expect(await store.claimRun('digest:30 8 * * *', '2026-11-23')).toBe(true)
    })

    it('of concurrent claims of one run exactly one is true', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => store.claimRun('digest', '2026-11-23')))
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it('two stores on one database racing for the same runs: exactly one wins each', async () => {
      const other = await db.open(now)
      try {
        const keys = ['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26']
        const results = await Promise.all(keys.flatMap((key) => [store.claimRun('digest', key), other.claimRun('digest', key)]))
        for (let i = 0; i < keys.length; i++) expect(results.slice(2 * i, 2 * i + 2).filter(Boolean)).toHaveLength(1)
        expect(await other.claimRun('digest', '2026-11-23')).toBe(false)
      } finally {
        await other.close()
      }
    })

    it('forgets claims made before the cutoff, and says how many; a forgotten run can be claimed again', async () => {
      await store.claimRun('digest', '2026-11-20')
      clock += 1000
      const cutoff = clock
      await store.claimRun('digest', '2026-11-21')
      expect((await store.forgetBefore(cutoff)).runClaims).toBe(1)
      expect(await store.claimRun('digest', '2026-11-21')).toBe(false)
      expect(await store.claimRun('digest', '2026-11-20')).toBe(true)
    })
  })

  describe('open messages and activity (the digest)', () => {
    const open = (over: Partial<MessageRecord>) => message({ state: 'open', ...over })

    it('lists the messages of open pull requests only, by channel (byte-wise), then oldest first, with their activity', async () => {
      await store.saveMessage(open({ channel: 'C2', prNumber: 1 }))
      clock += 1000
      await store.saveMessage(open({ channel: 'C1', prNumber: 2, mentions: [] }))
      await store.saveMessage(open({ channel: 'C1', prNumber: 3, state: 'draft' }))
      await store.saveMessage(open({ channel: 'C1', prNumber: 4, state: 'merged' }))
      await store.saveMessage(open({ prNumber: 5, ...NO_MESSAGE }))
      clock += 1000
      await store.saveMessage(open({ channel: 'C1', prNumber: 1 }))
      await store.saveMessage(open({ channel: 'c0', prNumber: 6 }))
      const rows = await store.openMessages()
      expect(rows.map((r) => [r.channel, r.prNumber])).toEqual([['C1', 2], ['C1', 1], ['C2', 1], ['c0', 6]])
      expect(rows[0]).toEqual({ ...pr, prNumber: 2, channel: 'C1', mentions: [], lifecycle: message().lifecycle, activityAt: clock - 1000 })
    })

    it('commitOutcome with activity stamps every message row of that pull request with the commit time, and only those', async () => {
      await store.saveMessage(open({ channel: 'C1' }))
      await store.saveMessage(open({ channel: 'C2' }))
      await store.saveMessage(open({ channel: 'C1', prNumber: 8 }))
      const created = clock
      clock += 60_000
      await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [], activity: pr })
      const activity = Object.fromEntries((await store.openMessages()).map((r) => [`${r.channel}#${r.prNumber}`, r.activityAt]))
      expect(activity).toEqual({ 'C1#7': clock, 'C2#7': clock, 'C1#8': created })
      // Saving a row again (an update without activity) keeps its activity.
      clock += 60_000
      await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [open({ channel: 'C1', reactions: [] })] })
      expect((await store.openMessages()).find((r) => r.channel === 'C1' && r.prNumber === 7)?.activityAt).toBe(clock - 60_000)
    })

    it('a row saved and stamped in one commit carries the commit time', async () => {
      await store.recordDelivery(delivery('d-1'))
      await store.commitOutcome({ provider: 'github', deliveryIds: ['d-1'], messages: [open({})], activity: pr })
      expect((await store.openMessages()).map((r) => r.activityAt)).toEqual([clock])
      expect((await store.pendingDeliveryStats()).count).toBe(0)
    })
  })
})
