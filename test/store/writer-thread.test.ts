import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { once } from 'node:events'
import type { Worker } from 'node:worker_threads'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let store: Store
let threads: Worker[]
const path = () => join(dir.path, 'prherald.db')

beforeEach(() => {
  dir = makeTempDir()
  threads = []
  const db = openDatabase(path())
  migrateUp(db)
  store = createSqliteStore(db, Date.now, { onWriterStart: (thread) => threads.push(thread) })
})
afterEach(async () => {
  await store.close()
  dir.remove()
})

const delivery = (deliveryId: string) => ({ provider: 'github' as const, deliveryId, prKey: 'github:acme/api#1', event: '{}' })
const pendingIds = async (s: Store) => (await s.pendingDeliveries()).map((d) => d.deliveryId)

describe('the SQLite writer thread', () => {
  it('commits off the event loop: a callback queued behind the group commit runs before the commit is done', async () => {
    let done = false
    const written = store.recordDelivery(delivery('a')).then(() => { done = true })
    // Queued after the group commit's own setImmediate: a commit on the event loop would be over by now.
    const seenDuring = await new Promise<boolean>((resolve) => setImmediate(() => resolve(done)))
    expect(seenDuring).toBe(false)
    await written
    expect(await pendingIds(store)).toEqual(['a'])
    expect(threads).toHaveLength(1)
  })

  it('a thread that dies under a commit fails that commit with a clear error; the next write starts a new thread', async () => {
    await store.recordDelivery(delivery('a'))
    const lost = store.recordDelivery(delivery('b'))
    await new Promise((resolve) => setImmediate(resolve)) // the batch is on the thread now
    await threads[0]!.terminate()
    await expect(lost).rejects.toMatchObject({ code: 'database', message: expect.stringMatching(/writer thread stopped/) })
    expect(await store.recordDelivery(delivery('c'))).toBe(true)
    expect(threads).toHaveLength(2)
    expect(await pendingIds(store)).toContain('c')
  })

  it('a thread that died while idle is replaced by the next write', async () => {
    await store.recordDelivery(delivery('a'))
    await threads[0]!.terminate()
    expect(await store.recordDelivery(delivery('b'))).toBe(true)
    expect(threads).toHaveLength(2)
    expect(await pendingIds(store)).toEqual(['a', 'b'])
  })

  it('close() commits every queued write, then ends the thread', async () => {
    await store.recordDelivery(delivery('a'))
    const ended = once(threads[0]!, 'exit')
    const writes = ['b', 'c', 'd'].map((id) => store.recordDelivery(delivery(id)))
    await store.close()
    expect(await Promise.all(writes)).toEqual([true, true, true])
    await ended
    const db = openDatabase(path())
    const reopened = createSqliteStore(db)
    expect(await pendingIds(reopened)).toEqual(['a', 'b', 'c', 'd'])
    await reopened.close()
    store = reopened // afterEach's close() of a closed store is a no-op
  })
})
