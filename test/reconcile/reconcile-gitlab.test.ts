import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { startFakeGitlab, type FakeGitlab } from '../helpers/fake-gitlab.ts'
import { apiMergeRequest, mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** prherald-reconcile against the fake GitLab, on the database a stopped server left; a project in a nested group. */
const CHANNEL = 'C0000000003'
const TOKEN = 'glpat-reconcile-token'
const PROJECT = 'platform/backend/api'
const h = usePrherald({ provider: 'gitlab', config: { mappings: { 'platform/backend': { api: { channel: CHANNEL } } } } })
let gitlab: FakeGitlab
let env: Env

const messageOf = (iid: number) => {
  const found = h.slack.messagesIn(CHANNEL).find((m) => JSON.stringify(m.blocks).includes(`/merge_requests/${iid}`))
  if (!found) throw new Error(`no message for !${iid}`)
  return found
}

const waitingOn = (iid: number) => /Waiting on [^"·\\]*/.exec(JSON.stringify(messageOf(iid).blocks))?.[0]?.trim()

beforeEach(async () => {
  gitlab = await startFakeGitlab()
  gitlab.token = TOKEN
  env = h.env({ GITLAB_API_URL: gitlab.url, GITLAB_TOKEN: TOKEN })
  await h.start(env)
  try {
    for (const iid of [1, 2]) {
      const res = await deliver(h.service!.url, 'gitlab', { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid, project: PROJECT, title: `Change ${iid}` }) })
      expect(res.status).toBe(200)
    }
    expect(await h.service!.settle(10_000)).toBe(true)
  } finally {
    await h.stop()
  }
  gitlab.mergeRequests.set(`${PROJECT}!1`, apiMergeRequest({ iid: 1, project: PROJECT, title: 'Change 1', state: 'merged' }))
  gitlab.mergeRequests.set(`${PROJECT}!2`, apiMergeRequest({ iid: 2, project: PROJECT, title: 'Change 2' }))
})
afterEach(async () => {
  await gitlab.close()
})

describe('prherald-reconcile on GitLab, no server running', () => {
  it('brings a merged merge request\'s message to merged, leaves the open one alone, waits out a 429, exits 0', async () => {
    gitlab.throttled.push({ path: /merge_requests\/2$/, times: 1, retryAfter: '0' })
    const updatesOf2 = messageOf(2).updates
    const result = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      `changed ${PROJECT}#1: merged`,
      '2 open or draft pull requests: changed 1, 1 already right',
    ])
    expect([...messageOf(1).reactions]).toContain('twisted_rightwards_arrows')
    expect(messageOf(2).updates).toBe(updatesOf2)
    const reads = gitlab.requests.map((r) => `${r.method} ${r.path}`)
    expect(reads.filter((r) => r.endsWith('/merge_requests/1'))).toEqual(['GET /api/v4/projects/platform%2Fbackend%2Fapi/merge_requests/1'])
    expect(reads.filter((r) => r.endsWith('/merge_requests/2'))).toHaveLength(2)
    // How far it is, on standard error (not a terminal here: plain lines), ending with every pull request counted.
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(/^reconciling: 2\/2 pull requests \(100%\), about 0 s left$/)
  })

  it('keeps who reviewed off "Waiting on": the merge request\'s reviewers carry no state, /reviewers does', async () => {
    const reviewers = [{ username: 'alice', state: 'approved' }, { username: 'carol' }]
    await h.start(env)
    try {
      const approval = mergeRequestHook('approval', { iid: 2, project: PROJECT, title: 'Change 2', actor: 'alice', reviewers, updatedAt: '2026-11-21T11:00:00Z' })
      expect((await deliver(h.service!.url, 'gitlab', { event: 'Merge Request Hook', payload: approval })).status).toBe(200)
      expect(await h.service!.settle(10_000)).toBe(true)
    } finally {
      await h.stop()
    }
    expect(waitingOn(2)).toBe('Waiting on carol')
    // Renamed while prherald was away: reconcile applies the API's facts.
    gitlab.mergeRequests.set(`${PROJECT}!2`, apiMergeRequest({ iid: 2, project: PROJECT, title: 'Change 2, renamed', reviewers }))
    gitlab.reviewers.set(`${PROJECT}!2`, reviewers)
    const result = await runCliAsync('reconcile', [PROJECT], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(`changed ${PROJECT}#2: title`)
    expect(JSON.stringify(messageOf(2).blocks)).toContain('Change 2, renamed')
    expect(waitingOn(2)).toBe('Waiting on carol')
  })

  it('a refused token exits non-zero, naming GITLAB_TOKEN, and changes nothing', async () => {
    const callsBefore = h.slack.calls.length
    const result = await runCliAsync('reconcile', [], { ...env, GITLAB_TOKEN: 'glpat-revoked' }, h.dir.path)
    expect(result.status).not.toBe(0)
    // The first refusal stops the run (the same token would fail every merge request): one line naming the variable.
    expect(result.stdout).toContain('stopped: GitLab refused the token in GITLAB_TOKEN (GitLab answered 401 to GET /projects/platform%2Fbackend%2Fapi/merge_requests/1) ' +
      '(fix: GITLAB_TOKEN is not valid, has expired or was revoked; create a new personal, project or group access token and set GITLAB_TOKEN)')
    expect(result.stdout).toContain('2 open or draft pull requests: changed 0, 0 already right, 2 not checked')
    expect(result.stdout + result.stderr).not.toContain('glpat-revoked')
    expect(h.slack.calls.length).toBe(callsBefore)
  })

  it('without GITLAB_TOKEN says so and exits non-zero, calling nothing', async () => {
    const { GITLAB_TOKEN: _token, ...withoutToken } = env
    const result = await runCliAsync('reconcile', [], withoutToken, h.dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('GITLAB_TOKEN is not set: reconcile asks GitLab for the state of each pull request')
    expect(gitlab.requests).toHaveLength(0)
  })
})
