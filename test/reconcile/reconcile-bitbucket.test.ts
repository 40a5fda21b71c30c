import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { bitbucketPayload, type BitbucketFacts } from '../lifecycle/bitbucket-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** prherald-reconcile against a fake Bitbucket Cloud, on the database a stopped server left. */
const CHANNEL = 'C0000000002'
const TOKEN = 'bb-access-token-reconcile'
const h = usePrherald({ provider: 'bitbucket', config: { mappings: { acme: { api: { channel: CHANNEL } } } } })
let bitbucket: FakeBitbucket
let env: Env

const pr = (facts: BitbucketFacts) => bitbucketPayload('pullrequest:updated', facts).pullrequest as Record<string, unknown>
const messageOf = (id: number) => {
  const found = h.slack.messagesIn(CHANNEL).find((m) => JSON.stringify(m.blocks).includes(`/pull-requests/${id}`))
  if (!found) throw new Error(`no message for #${id}`)
  return found
}

beforeEach(async () => {
  bitbucket = await startFakeBitbucket()
  bitbucket.auth = { bearer: TOKEN }
  env = h.env({ BITBUCKET_API_URL: bitbucket.url, BITBUCKET_TOKEN: TOKEN })
  await h.start(env)
  try {
    for (const id of [1, 2, 3, 4]) {
      expect((await deliver(h.service!.url, 'bitbucket', { event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id, title: `Change ${id}` }) })).status).toBe(200)
    }
    expect(await h.service!.settle(10_000)).toBe(true)
  } finally {
    await h.stop()
  }
  bitbucket.pullRequests.set('acme/api#1', pr({ id: 1, title: 'Change 1', state: 'MERGED' }))
  bitbucket.pullRequests.set('acme/api#2', pr({ id: 2, title: 'Change 2', state: 'DECLINED' }))
  bitbucket.pullRequests.set('acme/api#3', pr({ id: 3, title: 'Change 3, renamed', draft: true }))
  bitbucket.pullRequests.set('acme/api#4', pr({ id: 4, title: 'Change 4' }))
})
afterEach(async () => {
  await bitbucket.close()
})

describe('prherald-reconcile on Bitbucket, no server running', () => {
  it('--dry-run prints what would change and changes nothing', async () => {
    const callsBefore = h.slack.calls.length
    const result = await runCliAsync('reconcile', ['--dry-run', 'acme/api'], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      'would change acme/api#1: merged',
      'would change acme/api#2: closed',
      'would change acme/api#3: draft, title',
      '4 open or draft pull requests: would change 3, 1 already right',
    ])
    expect(h.slack.calls.length).toBe(callsBefore)
  })

  it('applies merged, declined, draft and title; leaves the one already right alone; waits out a 429', async () => {
    // Retry-After 0: the wait is counted, not timed (rate-limits.test.ts checks the waits on a fake clock).
    bitbucket.throttled.push({ path: /pullrequests\/4$/, times: 1, retryAfter: '0' })
    const updatesOf4 = messageOf(4).updates
    const result = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      'changed acme/api#1: merged',
      'changed acme/api#2: closed',
      'changed acme/api#3: draft, title',
      '4 open or draft pull requests: changed 3, 1 already right',
    ])
    expect([...messageOf(1).reactions]).toContain('twisted_rightwards_arrows')
    expect([...messageOf(2).reactions]).toContain('x')
    expect([...messageOf(3).reactions]).toContain('construction')
    expect(messageOf(3).text).toContain('Change 3, renamed')
    expect(messageOf(4).updates).toBe(updatesOf4)
    expect(bitbucket.requests.filter((r) => r.path.endsWith('/pullrequests/4'))).toHaveLength(2)
  })

  it('a token Bitbucket refuses (401) stops the run with a line naming BITBUCKET_TOKEN and the auth scheme, and exits 1', async () => {
    const result = await runCliAsync('reconcile', ['--dry-run'], { ...env, BITBUCKET_TOKEN: 'bb-revoked-token' }, h.dir.path)
    expect(result.status).toBe(1)
    const lines = result.stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^stopped: Bitbucket refused the token in BITBUCKET_TOKEN \(Bitbucket answered 401 to GET \/2\.0\/repositories\/acme\/api\/pullrequests\/\d\) /)
    expect(lines[0]).toContain('(fix: Bitbucket refused the Bearer token: BITBUCKET_TOKEN must be a repository or workspace access token (a scoped API token needs BITBUCKET_AUTH_EMAIL set')
    expect(lines[1]).toBe('4 open or draft pull requests: would change 0, 0 already right, 4 not checked')
  })

  it('without BITBUCKET_TOKEN says so and exits non-zero', async () => {
    const { BITBUCKET_TOKEN: _token, ...withoutToken } = env
    const result = await runCliAsync('reconcile', [], withoutToken, h.dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('BITBUCKET_TOKEN is not set: reconcile asks Bitbucket for the state of each pull request')
    expect(bitbucket.requests).toHaveLength(0)
  })
})
