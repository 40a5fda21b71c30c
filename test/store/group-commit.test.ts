import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let store: Store

beforeEach(() => {
  dir = makeTempDir()
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  store = createSqliteStore(db)
})
afterEach(async () => {
  await store.close()
  dir.remove()
})

const delivery = (deliveryId: string) => ({ provider: 'github' as const, deliveryId, prKey: 'github:acme/api#1', event: {} as never })

describe('group commit', () => {
  it('writes queued in one turn share a commit, and one failing write does not undo the others', async () => {
    const outcomes = await Promise.allSettled([
      store.recordDelivery(delivery('a')),
      store.saveMessage({
        provider: 'github', repository: 'acme/api', prNumber: 1, channel: 'C0123ABC',
        ts: null as unknown as string, // NOT NULL: this write fails
        mentions: [], state: 'open', lifecycle: {} as never, lastDeliveryId: null, reactions: [],
      }),
      store.recordDelivery(delivery('b')),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(outcomes[0]).toMatchObject({ value: true })
    expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['a', 'b'])
    expect(await store.countMessages()).toBe(0)
  })

  it('a delivery id seen before is reported as a duplicate, in the same batch or a later one', async () => {
    expect(await Promise.all([store.recordDelivery(delivery('a')), store.recordDelivery(delivery('a'))])).toEqual([true, false])
    expect(await store.recordDelivery(delivery('a'))).toBe(false)
    expect((await store.pendingDeliveryStats()).count).toBe(1)
  })
})
