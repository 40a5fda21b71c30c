import { afterEach, beforeEach, expect, it } from 'vitest'
import { join } from 'node:path'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { storedEvent } from '../../machines/stored-json.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createApplyPending } from '../../src/worker/apply-pending.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 25, the processing path: a batch its mailbox knows to be everything pending is not read back from
 * a database only this server uses (it was a quarter of the CPU per delivery); any other batch is.
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
  store.recordDelivery({ provider: event.provider, deliveryId: event.deliveryId, prKey: pullRequestKey(event), event: storedEvent(event) })
const applyPendingOf = (s: Store) => createApplyPending({ store: s, applyDeliveries: async (events) => void applied.push([...events]), repaint: async () => {} })

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

it('applies a known batch on SQLite without reading it back, exactly as the stored JSON reads', async () => {
  const event = { ...opened('d-1'), extra: undefined } as LifecycleEvent
  await record(event)
  const ids = await applyPendingOf(store)(pullRequestKey(event), [event])
  expect(reads).toBe(0)
  expect(ids).toEqual(['d-1'])
  expect(applied).toEqual([[opened('d-1')]])
  // A field without a value is dropped as the store drops it: the batch cannot differ from a read one.
  expect(Object.keys(applied[0]![0]!)).not.toContain('extra')
})

it('reads every pending delivery of the pull request, in arrival order, when the batch is not known', async () => {
  await record(opened('d-1'))
  await record(opened('d-2'))
  await record(opened('other', 8))
  expect(await applyPendingOf(store)(pullRequestKey(opened('d-2')))).toEqual(['d-1', 'd-2'])
  expect(reads).toBe(1)
  expect(applied.map((batch) => batch.map((e) => e.deliveryId))).toEqual([['d-1', 'd-2']])
})

it('reads all the same where other servers may work on the database (PostgreSQL)', async () => {
  const event = opened('d-1')
  await record(opened('d-0'))
  await record(event)
  const shared = Object.assign(Object.create(store) as Store, store, { soleServer: false })
  expect(await applyPendingOf(shared)(pullRequestKey(event), [event])).toEqual(['d-0', 'd-1'])
  expect(reads).toBe(1)
})
