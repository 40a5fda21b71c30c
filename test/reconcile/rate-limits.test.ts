import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hostOf } from '../../src/hosts/registry.ts'
import { join } from 'node:path'
import { initialContext } from '../../machines/pull-request.machine.ts'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import { createCallLimit } from '../../src/worker/call-limit.ts'
import { formatReport, reportFailed } from '../../src/reconcile/format-report.ts'
import { runReconcile, type RunReconcileOptions } from '../../src/reconcile/run-reconcile.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Reconcile keeps to the git host's rate limits: GitHub's x-ratelimit-* budget and Bitbucket's 429. The
 * fakes answer with those headers; the run waits on a fake clock whose sleep records the wait and moves
 * time on, so the tests count calls and waits, never time.
 */
const T0 = Date.UTC(2026, 10, 23, 9, 0, 0)
let dir: ReturnType<typeof makeTempDir>
let store: Store
let shutdown: AbortController
let clock: { at: number; waits: number[]; now(): number; sleep(ms: number): Promise<void>; onSleep?: () => void }

/** A message shown as open for `repository#number`, as the worker would have stored it. */
async function storeOpen(provider: 'github' | 'bitbucket', repository: string, number: number, title: string) {
  const [owner = '', repo = ''] = repository.split('/')
  const event = {
    provider, deliveryId: `d-${number}`, owner, repo, number, kind: 'opened', actor: { login: 'alice', isBot: false },
    pr: { title, url: `https://example.com/${repository}/${number}`, author: 'alice', draft: false, state: 'open', createdAt: '2026-11-20T09:00:00Z', updatedAt: '2026-11-20T09:00:00Z' },
  } satisfies PullRequestEvent
  await store.saveMessage({
    provider, repository, prNumber: number, channel: 'C0000000001', ts: `1700000000.00000${number}`, mentions: [], reactions: [],
    state: 'open', lifecycle: { state: 'open', context: initialContext(event) }, lastDeliveryId: event.deliveryId,
  })
}

beforeEach(() => {
  dir = makeTempDir()
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  store = createSqliteStore(db)
  shutdown = new AbortController()
  clock = {
    at: T0, waits: [],
    now() { return this.at },
    async sleep(ms) {
      this.waits.push(ms)
      this.at += ms
      this.onSleep?.()
    },
  }
})
afterEach(async () => {
  shutdown.abort()
  await store.close()
  dir.remove()
})

/** The host as the composition root hands it to reconcile: its API built once, with a token. */
const reconcileHost = (id: string, apiUrl: string) => {
  const host = hostOf(id)
  return { id, host, mappings: {}, api: host.connect({ token: 'token', extra: {}, scheme: undefined }, apiUrl) }
}

const options = (over: Partial<RunReconcileOptions>): RunReconcileOptions => ({
  settings: { publicUrl: undefined },
  host: reconcileHost('github', ''),
  store, redeliver: false,
  // One call at a time, so that which call meets the spent budget is certain.
  limit: createCallLimit(1, shutdown.signal),
  clock: { now: () => clock.now(), sleep: (ms) => clock.sleep(ms) },
  ...over,
})

describe('GitHub x-ratelimit-*', () => {
  let github: FakeGithub
  beforeEach(async () => {
    github = await startFakeGithub()
    for (const n of [1, 2, 3]) {
      await storeOpen('github', 'acme/api', n, `Change ${n}`)
      github.pulls.set(`acme/api#${n}`, pullRequest('opened', n, { title: `Change ${n}` }).pull_request as Record<string, unknown>)
    }
    github.hooks.set('acme/api', [])
  })
  afterEach(() => github.close())
  const run = () => runReconcile(options({ host: reconcileHost('github', github.url) }))
  const pullCalls = () => github.requests.filter((r) => r.path.includes('/pulls/'))

  it('an answer that spends the budget holds the next call until x-ratelimit-reset, then goes on', async () => {
    github.rateLimit = { limit: 5000, remaining: 2, resetSeconds: T0 / 1000 + 60 }
    clock.onSleep = () => { github.rateLimit!.remaining = 5000 } // GitHub refills the budget at the reset
    const report = await run()
    expect(clock.waits).toEqual([60_000])
    expect(pullCalls()).toHaveLength(3)
    expect(github.requests.filter((r) => r.headers['x-ratelimit-remaining'] !== undefined)).toHaveLength(0)
    expect(report.pullRequests).toMatchObject({ total: 3, unchanged: 3, failed: 0, notChecked: 0, stopped: undefined })
  })

  it('a 403 with nothing remaining is waited out and the call tried again', async () => {
    github.rateLimit = { limit: 5000, remaining: 0, resetSeconds: T0 / 1000 + 120 }
    clock.onSleep = () => { github.rateLimit!.remaining = 5000 }
    const report = await run()
    expect(clock.waits).toEqual([120_000])
    expect(pullCalls()).toHaveLength(4) // the refused one, then the three
    expect(report.pullRequests).toMatchObject({ total: 3, unchanged: 3, failed: 0 })
  })

  it('a budget spent for longer than reconcile waits stops the run with a clear message, without asking again', async () => {
    github.rateLimit = { limit: 5000, remaining: 0, resetSeconds: T0 / 1000 + 3600 }
    const report = await run()
    expect(clock.waits).toEqual([])
    expect(pullCalls()).toHaveLength(1)
    expect(github.requests.some((r) => r.path.includes('/hooks'))).toBe(false)
    expect(report.pullRequests).toMatchObject({ total: 3, notChecked: 3, failed: 0 })
    const lines = formatReport(report)
    expect(lines).toContain(`stopped: GitHub API rate limit reached; it resets at ${new Date(T0 + 3_600_000).toISOString()} (fix: rerun prherald-reconcile after ${new Date(T0 + 3_600_000).toISOString()}; pull requests not checked yet are left as they are)`)
    expect(lines.at(-1)).toBe('3 open or draft pull requests: would change 0, 0 already right, 3 not checked')
    expect(reportFailed(report)).toBe(true)
  })

  it('a secondary limit (403 with Retry-After) waits that long', async () => {
    github.failures.push({ path: /\/pulls\/1$/, status: 403, times: 1, headers: { 'retry-after': '45' } })
    const report = await run()
    expect(clock.waits).toEqual([45_000])
    expect(report.pullRequests).toMatchObject({ total: 3, unchanged: 3, failed: 0 })
  })
})

describe('Bitbucket 429', () => {
  let bitbucket: FakeBitbucket
  beforeEach(async () => {
    bitbucket = await startFakeBitbucket()
    await storeOpen('bitbucket', 'acme/api', 1, 'Change 1')
    bitbucket.pullRequests.set('acme/api#1', bitbucketPayload('pullrequest:updated', { id: 1, title: 'Change 1', state: 'MERGED' }).pullrequest as Record<string, unknown>)
  })
  afterEach(() => bitbucket.close())
  const run = () => runReconcile(options({ host: reconcileHost('bitbucket', bitbucket.url) }))

  it('waits Retry-After, or a minute without it, and tries again', async () => {
    bitbucket.throttled.push({ path: /pullrequests\/1$/, times: 1, retryAfter: '30' }, { path: /pullrequests\/1$/, times: 1 })
    const report = await run()
    expect(clock.waits).toEqual([30_000, 60_000])
    expect(bitbucket.requests.filter((r) => r.path.endsWith('/pullrequests/1'))).toHaveLength(3)
    expect(report.pullRequests.lines).toEqual([{ pullRequest: 'acme/api#1', changes: ['merged'] }])
  })

  it('stops after repeated 429s rather than trying for ever', async () => {
    bitbucket.throttled.push({ path: /pullrequests\/1$/, times: 100, retryAfter: '1' })
    const report = await run()
    expect(bitbucket.requests.filter((r) => r.path.endsWith('/pullrequests/1'))).toHaveLength(5)
    expect(report.pullRequests.stopped?.message).toMatch(/^Bitbucket API rate limit reached/)
  })
})
