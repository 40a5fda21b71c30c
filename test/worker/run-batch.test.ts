import { afterEach, beforeEach, expect, it } from 'vitest'
import { join } from 'node:path'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createBatchRunner } from '../../src/worker/run-batch.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 25, the processing path: a batch its mailbox knows to be everything pending is not read back from
 * a database only this server uses (it was a quarter of the CPU per delivery); any other batch is. Issue 31:
 * one runner owns the batch, and hands it an explicit context (the lock's signal) instead of ambient state.
 * The running server's side: test/faults/parked-deliveries.test.ts (a later delivery while a failed one waits).
 */
let dir: ReturnType<typeof makeTempDir>
let store: Store
let reads: number
let applied: LifecycleEvent[][]

const opened = (deliveryId: string, number = 7) => {
  const decoded = hostOf('github').delivery.decode('pull_request', deliveryId, pullRequest('opened', number))
  if ('ignored' in decoded || 'check' in decoded) throw new Error('not a pull request event')
  return decoded
}
const record = (event: LifecycleEvent) =>
  store.recordDelivery({ provider: event.provider, deliveryId: event.deliveryId, prKey: pullRequestKey(event), event })
const runnerOf = (s: Store) => createBatchRunner({ store: s, apply: async (events) => void applied.push([...events]), repaint: async () => {} })
const appliedIds = () => applied.flatMap((batch) => batch.map((e) => e.deliveryId))

beforeEach(() => {
  dir = makeTempDir()
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  const sqlite = createSqliteStore(db)
  // The real store, with its reads of pending deliveries counted.
  store = Object.assign(Object.create(sqlite) as Store, sqlite, {
    pendingDeliveriesOf: (prKey: string) => { reads++; return sqlite.pendingDeliveriesOf(prKey) },
  })
  reads = 0
  applied = []
})
afterEach(async () => {
  await store.close()
  dir.remove()
})

it('applies a batch an intake handed over fresh on SQLite without reading it back, exactly as the stored JSON reads', async () => {
  const event = { ...opened('d-1'), extra: undefined } as LifecycleEvent
  await record(event)
  const runner = runnerOf(store)
  runner.fresh(event)
  await runner.run(pullRequestKey(event), [event])
  expect(reads).toBe(0)
  expect(applied).toEqual([[opened('d-1')]])
  // A field without a value is dropped as the store drops it: the batch cannot differ from a read one.
  expect(Object.keys(applied[0]![0]!)).not.toContain('extra')
})

it('reads every pending delivery of the pull request, in arrival order, when the batch is not known (a replay, a reconcile)', async () => {
  await record(opened('d-1'))
  await record(opened('d-2'))
  await record(opened('other', 8))
  await runnerOf(store).run(pullRequestKey(opened('d-2')), [opened('d-2')])
  expect(reads).toBe(1)
  expect(applied.map((batch) => batch.map((e) => e.deliveryId))).toEqual([['d-1', 'd-2']])
})

it('the same events handed back (a retry) are read: only a fresh hand-over is known', async () => {
  const event = opened('d-1')
  await record(event)
  const runner = runnerOf(store)
  runner.fresh(event)
  await runner.run(pullRequestKey(event), [event])
  await runner.run(pullRequestKey(event), [event])
  expect(reads).toBe(1)
})

it('after a failed batch or a replay the pull request reads until a read finds only its own batch; other pull requests are not affected', async () => {
  const runner = createBatchRunner({
    store, repaint: async () => {},
    apply: async (events) => {
      if (events.some((e) => e.deliveryId === 'fails')) throw new Error('Slack is down')
      applied.push([...events])
    },
  })
  const failing = opened('fails')
  await record(failing)
  runner.fresh(failing)
  await expect(runner.run(pullRequestKey(failing), [failing])).rejects.toThrow('Slack is down')
  // Unsure now: the next fresh batch reads (the failed delivery, settled meanwhile here, is not in it).
  await store.commitOutcome({ provider: 'github', deliveryIds: ['fails'], messages: [] })
  const b = opened('b')
  await record(b)
  runner.fresh(b)
  await runner.run(pullRequestKey(b), [b])
  expect(reads).toBe(1)
  // That read found only its own batch: known again.
  const c = opened('c')
  await record(c)
  runner.fresh(c)
  await runner.run(pullRequestKey(c), [c])
  expect(reads).toBe(1)
  runner.unsure(pullRequestKey(c))
  const other = opened('o', 8)
  await record(other)
  runner.fresh(other)
  await runner.run(pullRequestKey(other), [other])
  expect(reads).toBe(1)
  expect(appliedIds()).toEqual(['b', 'c', 'o'])
})

it('reads all the same where other servers may work on the database (PostgreSQL)', async () => {
  const event = opened('d-1')
  await record(opened('d-0'))
  await record(event)
  const shared = Object.assign(Object.create(store) as Store, store, { soleServer: false })
  const runner = runnerOf(shared)
  runner.fresh(event)
  await runner.run(pullRequestKey(event), [event])
  expect(reads).toBe(1)
  expect(appliedIds()).toEqual(['d-0', 'd-1'])
})

it('hands the batch its lock\'s signal, and repaints what settled after a lost lock at the next batch under the lock', async () => {
  const lock = new AbortController()
  const held = async () => Object.assign(async () => {}, { lost: lock.signal })
  const locked = Object.assign(Object.create(store) as Store, store, { lockPullRequest: held, tryLockPullRequest: held })
  const repainted: string[][] = []
  const runner = createBatchRunner({
    store: locked,
    apply: async (events, batch) => {
      expect(batch.lost).toBe(lock.signal)
      lock.abort(new Error('connection reset'))
      batch.changedAfterLoss.push({ ref: { provider: 'github', repository: 'o/r', prNumber: 7 }, channel: 'C1', next: undefined as never, reactions: undefined as never, change: { type: 'removeReaction', name: 'eyes' } })
      throw new Error('lock lost')
    },
    repaint: async (lost) => void repainted.push(lost.map((c) => c.channel)),
  })
  const event = opened('d-1')
  await record(event)
  await expect(runner.run(pullRequestKey(event), [event])).rejects.toThrow('lock lost')
  expect(repainted).toEqual([])
  await store.commitOutcome({ provider: 'github', deliveryIds: ['d-1'], messages: [] })
  await runner.run(pullRequestKey(event), [])
  expect(repainted).toEqual([['C1']])
})
