import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { connectHosts } from '../../src/config/connect-hosts.ts'
import type { Env } from '../../src/config/load-config.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * `reconcile.on_start: true`: the server reconciles the pull requests touched in the last day once it
 * listens, through its mailboxes, and asks GitHub to redeliver the deliveries that failed while it was down.
 */
const CHANNEL = 'C0000000003'
const REPO = 'Codertocat/Hello-World'
const TOKEN = 'ghp_on_start_token'
const PUBLIC_URL = 'https://prherald.example.com'
const h = usePrherald()
let github: FakeGithub

const config = (onStart: boolean | undefined) => writeConfig(h.dir.path, {
  git_provider: 'github', mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } }, ...(onStart === undefined ? {} : { reconcile: { on_start: onStart } }),
})
const env = (extra: Env = {}) => h.env({ GITHUB_API_URL: github.url, GITHUB_TOKEN: TOKEN, PRHERALD_PUBLIC_URL: PUBLIC_URL, ...extra })
const messageOf = (number: number) => h.slack.messagesIn(CHANNEL).find((m) => JSON.stringify(m.blocks).includes(`/pull/${number}`))!
const entry = (id: number, guid: string, at: string, statusCode: number, event = 'pull_request', action: string | null = 'closed') =>
  ({ id, guid, delivered_at: at, redelivery: false, duration: 0.1, status: statusCode === 200 ? 'OK' : 'Bad Gateway', status_code: statusCode, event, action, installation_id: null, repository_id: 1 })
const finished = () => h.service!.entries().some((e) => e.msg === 'reconcile finished')

beforeEach(async () => {
  github = await startFakeGithub()
  github.token = TOKEN
  config(undefined)
  const first = await h.start(env())
  try {
    for (const n of [30, 31]) expect((await deliver(first.url, 'github', { event: 'pull_request', payload: pullRequest('opened', n, { title: `Change ${n}` }) })).status).toBe(200)
    expect(await first.settle(10_000)).toBe(true)
  } finally {
    await first.stop()
  }
  github.pulls.set(`${REPO}#30`, pullRequest('closed', 30, { title: 'Change 30', merged: true }).pull_request as Record<string, unknown>)
  github.pulls.set(`${REPO}#31`, pullRequest('opened', 31, { title: 'Change 31' }).pull_request as Record<string, unknown>)
  github.hooks.set(REPO, [
    { id: 5, name: 'web', active: true, events: ['push'], config: { url: 'https://ci.example.com/hook', content_type: 'json', insecure_ssl: '0' } },
    { id: 7, name: 'web', active: true, events: ['pull_request'], config: { url: `${PUBLIC_URL}/webhook/github`, content_type: 'json', insecure_ssl: '0' } },
  ])
  github.hookDeliveries.set(5, [entry(1, 'ci-1', '2026-11-23T08:00:00Z', 502)])
  // Newest first, as GitHub lists them: failures while prherald was down, one already redelivered with success.
  github.hookDeliveries.set(7, [
    entry(110, 'guid-ok', '2026-11-23T09:10:00Z', 200, 'pull_request', 'opened'),
    entry(109, 'guid-redone', '2026-11-23T09:05:00Z', 200),
    entry(108, 'guid-lost', '2026-11-23T09:00:00Z', 502),
    entry(107, 'guid-lost', '2026-11-23T08:59:00Z', 0),
    entry(106, 'guid-redone', '2026-11-23T08:50:00Z', 502),
    entry(105, 'guid-ping', '2026-11-23T08:40:00Z', 502, 'ping', null),
    entry(104, 'guid-review', '2026-11-23T08:30:00Z', 0, 'pull_request_review', 'submitted'),
  ])
})
afterEach(async () => {
  await github.close()
})

describe('reconcile.on_start', () => {
  it('after listening, reconciles through the mailboxes and asks GitHub to redeliver what failed, once', async () => {
    config(true)
    await h.start(env())
    await waitFor('reconcile at start-up', finished)
    expect(await h.service!.settle(10_000)).toBe(true)
    const messages = h.service!.entries().map((e) => e.msg)
    expect(messages.indexOf('listening')).toBeLessThan(messages.indexOf('reconcile at start-up'))
    expect([...messageOf(30).reactions]).toContain('twisted_rightwards_arrows')
    expect(messageOf(31).updates).toBe(0)
    // The newest failed attempt of each event that never got through; not the ping, not the one redelivered since.
    expect(github.redeliveries).toEqual([`${REPO}#7:104`, `${REPO}#7:108`])
    expect(h.service!.entries().find((e) => e.msg === 'reconcile finished')).toMatchObject({ pull_requests: 2, changed: 1, unchanged: 1, missed_deliveries: 2, redelivered: 2 })
    expect(h.service!.logs.join('\n')).not.toContain(TOKEN)
    await h.stop()

    // A start within the same minute (another replica, say) leaves it to the one that claimed the run. This
    // start may fall in the next minute: that one is claimed here too, as a replica starting then would have.
    const { join } = await import('node:path')
    const { openDatabase } = await import('../../src/store/open-database.ts')
    const { createSqliteStore } = await import('../../src/store/sqlite-store.ts')
    const { ON_START_CLAIM_MS } = await import('../../src/reconcile/reconcile-on-start.ts')
    const store = createSqliteStore(openDatabase(join(h.dir.path, 'prherald.db')))
    const minute = Math.floor(Date.now() / ON_START_CLAIM_MS) * ON_START_CLAIM_MS
    // The first start claimed this minute or the one before.
    const free = [await store.claimRun('reconcile:on_start', new Date(minute - ON_START_CLAIM_MS).toISOString()),
      await store.claimRun('reconcile:on_start', new Date(minute).toISOString())]
    expect(free).toContain(false)
    await store.claimRun('reconcile:on_start', new Date(minute + ON_START_CLAIM_MS).toISOString())
    await store.close()
    const callsBefore = github.requests.length
    await h.start(env())
    await waitFor('the claim', () => h.service!.entries().some((e) => e.msg === 'reconcile at start-up left to the replica that claimed it'))
    expect(github.requests.length).toBe(callsBefore)
    expect(github.redeliveries).toHaveLength(2)
  })

  it('is off by default: the server asks GitHub nothing at start-up', async () => {
    await h.start(env())
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('edited', 31, { title: 'Change 31 again' }) })
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(github.requests).toHaveLength(0)
    expect(h.service!.entries().some((e) => e.msg === 'reconcile at start-up')).toBe(false)
  })

  it('without GITHUB_TOKEN warns once and skips it; the server runs', async () => {
    config(true)
    const { GITHUB_TOKEN: _token, ...withoutToken } = env()
    await h.start(withoutToken)
    const warning = h.service!.entries().find((e) => e.msg === 'reconcile.on_start is set but GITHUB_TOKEN is not; start-up reconcile skipped')
    expect(warning).toMatchObject({ level: 'warn', variable: 'GITHUB_TOKEN' })
    expect((await fetch(`${h.service!.url}/healthz`)).status).toBe(200)
    expect(github.requests).toHaveLength(0)
  })
})

describe('reconcile.on_start window', () => {
  it('leaves out pull requests untouched for more than a day', async () => {
    const { join } = await import('node:path')
    const { loadSettings } = await import('../../src/config/load-config.ts')
    const { createCallLimit } = await import('../../src/worker/call-limit.ts')
    const { createLogger } = await import('../../src/log/logger.ts')
    const { startReconcileOnStart, ON_START_WINDOW_MS } = await import('../../src/reconcile/reconcile-on-start.ts')
    const { openDatabase } = await import('../../src/store/open-database.ts')
    const { createSqliteStore } = await import('../../src/store/sqlite-store.ts')
    config(true)
    const settings = loadSettings(env(), h.dir.path)
    const store = createSqliteStore(openDatabase(join(h.dir.path, 'prherald.db')))
    const logs: string[] = []
    const handedOff: unknown[] = []
    const shutdown = new AbortController()
    try {
      const run = (now: number) => startReconcileOnStart({
        settings, hosts: connectHosts(settings.hosts, { github: { webhookSecret: 'x', gitAccess: { token: TOKEN, extra: {}, scheme: undefined } } }), store, handOff: (e) => handedOff.push(e),
        logger: createLogger({ format: 'json', level: 'info', write: (l) => logs.push(l) }), limit: createCallLimit(2, shutdown.signal), now: () => now,
      }).done
      await run(Date.now() + ON_START_WINDOW_MS + 60_000)
      expect(github.requests.filter((r) => r.path.includes('/pulls/'))).toHaveLength(0)
      await run(Date.now() + ON_START_WINDOW_MS - 60_000)
      expect(github.requests.filter((r) => r.path.includes('/pulls/'))).toHaveLength(2)
      expect(handedOff).toHaveLength(1)
    } finally {
      shutdown.abort()
      await store.close()
    }
  })
})
