import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { isPrheraldError } from '../../src/errors.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** 11.4 at the store: another process's write lock is waited for on timers, never in SQLite's busy handler. */
let dir: ReturnType<typeof makeTempDir>
let store: Store
let holder: ChildProcess | undefined
let lockWaits: number[]

const dbFile = () => join(dir.path, 'prherald.db')
const delivery = (deliveryId: string) => ({ provider: 'github' as const, deliveryId, prKey: 'github:acme/api#1', event: {} as never })

/** A second process that holds a write transaction until its stdin closes; resolves once it holds it. */
function holdWriteLock(): Promise<void> {
  const script = `const db = new (require('better-sqlite3'))(${JSON.stringify(dbFile())}); db.exec('BEGIN IMMEDIATE'); console.log('locked'); process.stdin.on('end', () => { db.exec('ROLLBACK'); db.close(); console.log('released') }); process.stdin.resume()`
  holder = spawn(process.execPath, ['-e', script], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] })
  return new Promise((resolve) => holder!.stdout!.on('data', (chunk: Buffer) => { if (chunk.toString().includes('locked')) resolve() }))
}
async function releaseWriteLock(): Promise<void> {
  const exited = new Promise((resolve) => holder!.once('exit', resolve))
  holder!.stdin!.end()
  await exited
  holder = undefined
}

beforeEach(() => {
  dir = makeTempDir()
  const db = openDatabase(dbFile())
  migrateUp(db)
  lockWaits = []
  store = createSqliteStore(db, Date.now, { lockWaitMs: 60_000, onLockWait: (n) => lockWaits.push(n) })
})
afterEach(async () => {
  if (holder) await releaseWriteLock()
  await store.close()
  dir.remove()
})

describe('group commit under another process\'s write lock', () => {
  it('keeps the event loop turning while writes wait, lets later writes join them, and commits all once the lock ends', async () => {
    await holdWriteLock()
    let settled = 0
    const first = store.recordDelivery(delivery('a')).finally(() => settled++)
    // Count turns of the event loop while the write waits: a synchronous busy wait would allow none.
    let turns = 0
    await new Promise<void>((resolve) => {
      const tick = () => (++turns < 20 ? setTimeout(tick, 5) : resolve())
      tick()
    })
    expect(settled).toBe(0)
    expect(lockWaits).toEqual([1])
    const second = store.recordDelivery(delivery('b')).finally(() => settled++)
    await new Promise((r) => setTimeout(r, 30))
    expect(settled).toBe(0)

    await releaseWriteLock()
    expect(await Promise.all([first, second])).toEqual([true, true])
    expect((await store.pendingDeliveryStats()).count).toBe(2)
    expect(lockWaits).toEqual([1]) // one line per episode, not one per retry
  })

  it('rejects a write with database_busy once its own deadline passes', async () => {
    await store.close()
    const db = openDatabase(dbFile())
    store = createSqliteStore(db, Date.now, { lockWaitMs: 100 })
    await holdWriteLock()
    const error = await store.recordDelivery(delivery('late')).then(() => undefined, (e: unknown) => e)
    expect(isPrheraldError(error, 'database_busy'), String(error)).toBe(true)
    expect((error as Error).message).toContain(dbFile())
    await releaseWriteLock()
    expect(await store.recordDelivery(delivery('late'))).toBe(true)
  })
})
