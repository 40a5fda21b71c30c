import { afterEach, describe, expect, it } from 'vitest'
import { renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { githubExample } from '../helpers/github-examples.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** 11.4: a database locked by another program, or deleted or replaced underneath the server. */
const h = usePrherald({ config: { mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } } })
let holder: Database.Database | undefined

afterEach(async () => {
  if (holder?.inTransaction) holder.exec('ROLLBACK')
  holder?.close()
  holder = undefined
})

const dbFile = () => join(h.dir.path, 'prherald.db')
const opened = (id: string) => deliver(h.service!.url, 'github', { event: 'pull_request', payload: githubExample('pull_request', 'opened'), deliveryId: id })

describe('a database locked by another program', () => {
  it('keeps /healthz answering while a delivery waits for the lock, and gives the delivery a 503 at the deadline', async () => {
    await h.start(h.env(), { databaseLockWaitMs: 1000 })
    // Another connection holds the write lock (a sqlite3 shell with an open transaction, say). It lives in
    // this process, so a synchronous wait inside the service could never end before its own deadline.
    holder = new Database(dbFile())
    holder.exec('BEGIN IMMEDIATE')

    const order: string[] = []
    const delivery = opened('locked-1').then((res) => { order.push('delivery'); return res })
    await waitFor('the lock wait to be logged', () => h.service!.entries().some((e) => e.msg === 'the database is locked by another program; writes wait for it'))
    const health = await fetch(`${h.service!.url}/healthz`)
    order.push('healthz')
    expect(health.status).toBe(200)

    const res = await delivery
    // Answered while the delivery was still waiting: the event loop was free.
    expect(order).toEqual(['healthz', 'delivery'])
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ error: 'database_busy' })
    expect(h.service!.entries().filter((e) => e.msg === 'webhook delivery failed')).toEqual([
      expect.objectContaining({ level: 'error', status: 503, kind: 'database_busy', delivery_id: 'locked-1' }),
    ])
    expect(h.slack.count('chat.postMessage')).toBe(0)

    // The lock ends; the git host's redelivery is taken and applied.
    holder.exec('ROLLBACK')
    expect((await opened('locked-1')).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(h.slack.count('chat.postMessage')).toBe(1)
  })

  it('commits a waiting delivery once the lock ends before its deadline', async () => {
    await h.start(h.env(), { databaseLockWaitMs: 30_000 })
    holder = new Database(dbFile())
    holder.exec('BEGIN IMMEDIATE')
    const delivery = opened('wait-then-go')
    await waitFor('the lock wait to be logged', () => h.service!.entries().some((e) => e.msg === 'the database is locked by another program; writes wait for it'))
    holder.exec('ROLLBACK')
    expect((await delivery).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(h.slack.count('chat.postMessage')).toBe(1)
  })
})

describe('a database deleted or replaced under the server', () => {
  const readyz = async () => (await fetch(`${h.service!.url}/readyz`)).status

  it('notices a deleted file: an error line with the fix, /healthz 200 with the state, /readyz 503, deliveries refused with 503', async () => {
    await h.start(h.env(), { databaseCheckMs: 20 })
    expect(await readyz()).toBe(200)
    expect(await (await fetch(`${h.service!.url}/healthz`)).json()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })

    for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile()}${suffix}`, { force: true })
    await waitFor('readyz to answer 503', async () => (await readyz()) === 503)

    const health = await fetch(`${h.service!.url}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'degraded', database: 'deleted', slack: 'ok' })
    const line = h.service!.entries().find((e) => e.msg === 'the database file was deleted while the server runs')
    expect(line).toMatchObject({ level: 'error', database: dbFile(), database_state: 'deleted' })
    expect(String(line?.fix)).toMatch(/put the database file back/)

    const res = await opened('after-delete')
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ error: 'database_gone' })
    expect(h.slack.count('chat.postMessage')).toBe(0)
  })

  it.each(['deleted', 'replaced'] as const)('a delivery that arrives right after the file was %s is refused (503), never acknowledged into the lost file', async (what) => {
    // The periodic check is an hour away: only the comparison made by the commit itself can notice.
    await h.start(h.env(), { databaseCheckMs: 3_600_000 })
    expect((await opened('before')).status).toBe(200)
    expect(await h.service!.settle(5000)).toBe(true)
    if (what === 'deleted') for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile()}${suffix}`, { force: true })
    else {
      const other = join(h.dir.path, 'other.db')
      new Database(other).close()
      renameSync(other, dbFile())
    }
    const res = await opened('after')
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ error: 'database_gone' })
    expect(await readyz()).toBe(503)
    expect(await (await fetch(`${h.service!.url}/healthz`)).json()).toMatchObject({ status: 'degraded', database: what })
  })

  it('notices a file replaced by another one', async () => {
    await h.start(h.env(), { databaseCheckMs: 20 })
    const other = join(h.dir.path, 'other.db')
    new Database(other).close()
    // What a restore script does: put a file in place with one rename.
    renameSync(other, dbFile())
    await waitFor('readyz to answer 503', async () => (await readyz()) === 503)
    expect(await (await fetch(`${h.service!.url}/healthz`)).json()).toMatchObject({ status: 'degraded', database: 'replaced' })
  })
})
