import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createCallLimit } from '../../src/worker/call-limit.ts'
import { createGithubClient } from '../../src/hosts/github/client.ts'
import { githubRequests } from '../../src/hosts/github/requests.ts'
import { createHostRateGate } from '../../src/hosts/host-rate-gate.ts'
import { missedDeliveries } from '../../src/hosts/github/missed-deliveries.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** GitHub's webhook delivery log: paging by cursor, the mark, which hook is prherald's. */
const h = usePrherald()
let store: Store
let github: FakeGithub
let shutdown: AbortController

const hook = (id: number, url: string) => ({ id, name: 'web' as const, active: true, events: ['pull_request'], config: { url, content_type: 'json', insecure_ssl: '0' } })
/** `count` entries, newest first, one a minute back from 10:00; the ones at `failed` indexes answered 502. */
const log = (count: number, failed: number[]) => Array.from({ length: count }, (_, i) => ({
  id: 5000 - i, guid: `guid-${i}`, delivered_at: new Date(Date.UTC(2026, 10, 23, 10, 0) - i * 60_000).toISOString().replace('.000Z', 'Z'),
  redelivery: false, status: failed.includes(i) ? 'Bad Gateway' : 'OK', status_code: failed.includes(i) ? 502 : 200, event: 'pull_request', action: 'synchronize',
}))

beforeEach(async () => {
  const db = openDatabase(join(h.dir.path, 'prherald.db'))
  migrateUp(db)
  store = createSqliteStore(db)
  github = await startFakeGithub()
  shutdown = new AbortController()
})
afterEach(async () => {
  shutdown.abort()
  await github.close()
  await store.close()
})

const run = (over: { hookUrl?: string; redeliver?: boolean } = {}) => {
  const clock = { now: Date.now, sleep: async () => {} }
  const gate = createHostRateGate({ host: 'GitHub', limit: createCallLimit(2, shutdown.signal), clock, maxWaitMs: 0 })
  const request = githubRequests(createGithubClient({ baseUrl: github.url, token: 't' }), gate, clock)
  return missedDeliveries({ request, store, repositories: ['acme/api'], hookUrl: over.hookUrl, redeliver: over.redeliver ?? true })
}
const logPages = () => github.requests.filter((r) => r.path.endsWith('/deliveries')).map((r) => r.query.get('cursor'))

describe('missed GitHub deliveries', () => {
  it('follows the cursor through the log, redelivers the failed ones oldest first, and the next run reads only what is newer', async () => {
    github.hooks.set('acme/api', [hook(9, 'https://prherald.example.com/webhook/github')])
    github.hookDeliveries.set(9, log(150, [3, 120]))
    const first = await run()
    expect(logPages()).toEqual([null, '100'])
    expect(first.missed.map((m) => m.guid)).toEqual(['guid-120', 'guid-3'])
    expect(github.redeliveries).toEqual(['acme/api#9:4880', 'acme/api#9:4997'])
    expect(await store.hookDeliveryMark('github', 'acme/api#9')).toEqual({ deliveredAt: '2026-11-23T10:00:00Z', deliveryId: '5000' })

    // Two newer deliveries, one failed: one page, and only it.
    github.hookDeliveries.set(9, [...log(2, [0]).map((e, i) => ({ ...e, id: 6000 - i, guid: `new-${i}`, delivered_at: `2026-11-23T11:0${i}:00Z` })), ...log(150, [3, 120])])
    const second = await run()
    expect(second.missed.map((m) => m.guid)).toEqual(['new-0'])
    expect(logPages()).toEqual([null, '100', null])
    expect(github.redeliveries).toHaveLength(3)
  })

  it('a dry run lists and neither redelivers nor moves the mark', async () => {
    github.hooks.set('acme/api', [hook(9, 'https://prherald.example.com/webhook/github/')])
    github.hookDeliveries.set(9, log(5, [1]))
    const result = await run({ redeliver: false })
    expect(result.missed).toMatchObject([{ guid: 'guid-1', redelivered: false, event: 'pull_request.synchronize', statusCode: 502 }])
    expect(github.redeliveries).toEqual([])
    expect(await store.hookDeliveryMark('github', 'acme/api#9')).toBeUndefined()
  })

  it('takes the hook at PRHERALD_PUBLIC_URL among several, and says why when it cannot tell which is prherald\'s', async () => {
    github.hooks.set('acme/api', [hook(1, 'https://old.example.com/webhook/github'), hook(2, 'https://prherald.example.com/webhook/github')])
    github.hookDeliveries.set(2, log(2, [0]))
    expect((await run({ hookUrl: 'https://prherald.example.com/webhook/github' })).missed.map((m) => m.hookId)).toEqual([2])
    const unclear = await run()
    expect(unclear.missed).toEqual([])
    expect(unclear.problems).toEqual([{ repository: 'acme/api', message: 'several webhooks end in /webhook/github', fix: expect.stringContaining('PRHERALD_PUBLIC_URL') }])
  })

  it('a token that may not read the hooks is a problem of that repository, with the fix', async () => {
    github.failures.push({ path: /\/hooks$/, status: 403 })
    const result = await run()
    expect(result.problems).toEqual([{ repository: 'acme/api', message: 'GitHub answered 403 to GET /repos/acme/api/hooks', fix: expect.stringContaining('Webhooks') }])
  })
})
