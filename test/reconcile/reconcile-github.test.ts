import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor, type TestService } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * prherald-reconcile against a fake GitHub, run as the built CLI on the database a stopped server left: the
 * pull requests changed on GitHub while prherald was down get their messages brought to their real state.
 */
const CHANNEL = 'C0000000001'
const REPO = 'Codertocat/Hello-World'
const TOKEN = 'ghp_reconcile_test_token'
const h = usePrherald({ config: { mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } } } })
let github: FakeGithub
let env: Env

/** The GitHub REST answer for one pull request: the webhook example's pull_request with the scenario's facts. */
const pull = (action: string, number: number, facts: Parameters<typeof pullRequest>[2] = {}) => pullRequest(action, number, facts).pull_request as Record<string, unknown>
const messageOf = (number: number) => {
  const found = h.slack.messagesIn(CHANNEL).find((m) => JSON.stringify(m.blocks).includes(`/pull/${number}"`) || JSON.stringify(m.blocks).includes(`/pull/${number}>`) || JSON.stringify(m.blocks).includes(`/pull/${number}|`))
  if (!found) throw new Error(`no message for #${number}`)
  return found
}

beforeEach(async () => {
  github = await startFakeGithub()
  github.token = TOKEN
  // prherald's webhook on the repository, with an empty delivery log until a test fills it.
  github.hooks.set(REPO, [{ id: 7, name: 'web', active: true, events: ['pull_request'], config: { url: 'https://prherald.example.com/webhook/github', content_type: 'json', insecure_ssl: '0' } }])
  github.hookDeliveries.set(7, [])
  env = h.env({ GITHUB_API_URL: github.url, GITHUB_TOKEN: TOKEN })
  // What prherald saw before it went down: five pull requests announced, #25 then turned into a draft.
  await h.start(env)
  try {
    for (const n of [20, 21, 22, 23, 25]) {
      expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', n, { title: `Change ${n}` }) })).status).toBe(200)
    }
    expect(await h.service!.settle(10_000)).toBe(true)
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('converted_to_draft', 25, { title: 'Change 25', draft: true }) })).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  } finally {
    await h.stop()
  }
  // What happened on GitHub meanwhile.
  github.pulls.set(`${REPO}#20`, pull('closed', 20, { title: 'Change 20', merged: true }))
  github.pulls.set(`${REPO}#21`, pull('converted_to_draft', 21, { title: 'Change 21', draft: true }))
  github.pulls.set(`${REPO}#22`, pull('edited', 22, { title: 'Change 22, renamed' }))
  github.pulls.set(`${REPO}#23`, pull('opened', 23, { title: 'Change 23' }))
  github.pulls.set(`${REPO}#25`, pull('ready_for_review', 25, { title: 'Change 25' }))
})
afterEach(async () => {
  await github.close()
})

describe('prherald-reconcile on GitHub, no server running', () => {
  it('--dry-run prints what would change and changes nothing', async () => {
    const callsBefore = h.slack.calls.length
    const result = await runCliAsync('reconcile', ['--dry-run'], env, h.dir.path)
    // Nothing on standard error but how far it is (a dry run checks every pull request too).
    expect(result.stderr).toBe('reconciling: 5/5 pull requests (100%), about 0 s left\n')
    expect(result.status).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      `would change ${REPO}#20: merged`,
      `would change ${REPO}#21: draft`,
      `would change ${REPO}#22: title`,
      `would change ${REPO}#25: ready`,
      '5 open or draft pull requests: would change 4, 1 already right; 0 missed deliveries',
    ])
    expect(h.slack.calls.length).toBe(callsBefore)
    expect(github.requests.filter((r) => r.path.startsWith(`/repos/${REPO}/pulls/`)).map((r) => r.headers.authorization)).toEqual(Array(5).fill(`token ${TOKEN}`))
  })

  it('applies: merged, draft, ready and title reach the messages; the one already right is not touched; a second run finds nothing', async () => {
    const before = new Map([20, 21, 22, 23, 25].map((n) => [n, messageOf(n).updates]))
    const result = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      `changed ${REPO}#20: merged`,
      `changed ${REPO}#21: draft`,
      `changed ${REPO}#22: title`,
      `changed ${REPO}#25: ready`,
      '5 open or draft pull requests: changed 4, 1 already right; 0 missed deliveries',
    ])
    expect([...messageOf(20).reactions]).toContain('twisted_rightwards_arrows')
    expect([...messageOf(21).reactions]).toContain('construction')
    expect(messageOf(22).text).toContain('Change 22, renamed')
    expect([...messageOf(25).reactions]).not.toContain('construction')
    expect(messageOf(23).updates).toBe(before.get(23))
    expect([...messageOf(23).reactions]).toEqual([])
    expect(h.slack.count('chat.postMessage')).toBe(5)

    const again = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(again.status, again.stderr).toBe(0)
    expect(again.stdout.split('\n').filter(Boolean)).toEqual(['4 open or draft pull requests: changed 0, 4 already right; 0 missed deliveries'])
  })

  it('narrows to one repository', async () => {
    const result = await runCliAsync('reconcile', ['--dry-run', 'Codertocat/Other'], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^0 open or draft pull requests: would change 0, 0 already right/)
    expect(github.requests.filter((r) => r.path.includes('/pulls/'))).toEqual([])
  })

  it('without GITHUB_TOKEN says so and exits non-zero, asking GitHub and Slack nothing', async () => {
    const { GITHUB_TOKEN: _token, ...withoutToken } = env
    const callsBefore = h.slack.calls.length
    const result = await runCliAsync('reconcile', [], withoutToken, h.dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('GITHUB_TOKEN is not set: reconcile asks GitHub for the state of each pull request')
    expect(result.stderr).toContain('fix: set GITHUB_TOKEN')
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(github.requests).toHaveLength(0)
    expect(h.slack.calls.length).toBe(callsBefore)
  })

  it('a token GitHub refuses (401) stops the run with a line naming GITHUB_TOKEN, and exits 1, with or without --dry-run', async () => {
    const refused = { ...env, GITHUB_TOKEN: 'ghp_revoked_token' }
    const fix = '(fix: GITHUB_TOKEN is not valid or has expired; create a new token and set GITHUB_TOKEN)'
    // No open pull request there: only the webhook log is read, and its 401 used to be a note beside "0 … pull requests", exit 0.
    for (const args of [['--dry-run', 'Codertocat/Other'], ['Codertocat/Other']]) {
      const result = await runCliAsync('reconcile', args, refused, h.dir.path)
      expect(result.status, args.join(' ')).toBe(1)
      expect(result.stdout.split('\n').filter(Boolean)).toEqual([
        `stopped: GitHub refused the token in GITHUB_TOKEN (GitHub answered 401 to GET /repos/Codertocat/Other/hooks) ${fix}`,
        `0 open or draft pull requests: ${args[0] === '--dry-run' ? 'would change' : 'changed'} 0, 0 already right`,
      ])
    }
    // Every pull request: one stop, not five failures; nothing reaches Slack.
    const callsBefore = h.slack.calls.length
    const all = await runCliAsync('reconcile', [], refused, h.dir.path)
    expect(all.status).toBe(1)
    expect(all.stdout).toMatch(new RegExp(`^stopped: GitHub refused the token in GITHUB_TOKEN \\(GitHub answered 401 to GET /repos/${REPO}/pulls/\\d+\\) `, 'm'))
    expect(all.stdout).not.toContain('failed ')
    expect(all.stdout.trim().split('\n').at(-1)).toBe('5 open or draft pull requests: changed 0, 0 already right, 5 not checked')
    expect(h.slack.calls.length).toBe(callsBefore)
  })

  it('a pull request GitHub does not know is a failed line and a non-zero exit; the others are still reconciled', async () => {
    github.pulls.delete(`${REPO}#23`)
    const result = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(result.status).toBe(1)
    expect(result.stdout).toContain(`failed ${REPO}#23: GitHub answered 404 to GET /repos/${REPO}/pulls/23`)
    expect(result.stdout).toContain('5 open or draft pull requests: changed 4, 0 already right, 1 failed')
    expect([...messageOf(20).reactions]).toContain('twisted_rightwards_arrows')
  })

  it('lists failed webhook deliveries; without a server to receive them it does not ask GitHub to redeliver', async () => {
    github.hookDeliveries.set(7, [
      { id: 903, guid: 'guid-c', delivered_at: '2026-11-23T09:00:00Z', redelivery: false, status: 'OK', status_code: 200, event: 'pull_request', action: 'opened' },
      { id: 902, guid: 'guid-b', delivered_at: '2026-11-23T08:30:00Z', redelivery: false, status: 'failed to connect', status_code: 0, event: 'pull_request', action: 'closed' },
    ])
    const dry = await runCliAsync('reconcile', ['--dry-run'], env, h.dir.path)
    expect(dry.stdout).toContain(`would redeliver ${REPO} delivery guid-b pull_request.closed of 2026-11-23T08:30:00Z (answered nothing)`)
    const applied = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(applied.status, applied.stderr).toBe(0)
    expect(applied.stdout).toContain(`missed (not redelivered: no server is running to receive it) ${REPO} delivery guid-b`)
    expect(applied.stdout).toContain('; 1 missed delivery\n')
    expect(github.redeliveries).toEqual([])
  })
})

describe('prherald-reconcile while a server runs', () => {
  let service: TestService | undefined
  afterEach(async () => {
    await h.stop()
  })

  it('hands its work to the server over the control socket: the server applies it through its mailboxes and redelivers', async () => {
    github.hookDeliveries.set(7, [
      { id: 902, guid: 'guid-b', delivered_at: '2026-11-23T08:30:00Z', redelivery: false, status: 'failed to connect', status_code: 0, event: 'pull_request', action: 'closed' },
    ])
    await h.start(env)
    const result = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      `changed ${REPO}#20: merged`,
      `changed ${REPO}#21: draft`,
      `changed ${REPO}#22: title`,
      `changed ${REPO}#25: ready`,
      `redelivered ${REPO} delivery guid-b pull_request.closed of 2026-11-23T08:30:00Z (answered nothing)`,
      '5 open or draft pull requests: changed 4, 1 already right; 1 missed delivery, 1 redelivered',
    ])
    // The server ran it: its log has the run, and its mailboxes carried out the changes.
    expect(h.service!.entries().find((e) => e.msg === 'reconcile finished')).toMatchObject({ changed: 4, redelivered: 1 })
    expect(await h.service!.settle(10_000)).toBe(true)
    await waitFor('the merged reaction', () => messageOf(20).reactions.has('twisted_rightwards_arrows'))
    expect(messageOf(22).text).toContain('Change 22, renamed')
    expect(github.redeliveries).toEqual([`${REPO}#7:902`])
  })

  it('a server without GITHUB_TOKEN answers why, and the command exits non-zero', async () => {
    const { GITHUB_TOKEN: _token, ...serverEnv } = env
    await h.start(serverEnv)
    const result = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('the running prherald-server has no GITHUB_TOKEN')
    expect(result.stderr).toContain("fix: set GITHUB_TOKEN in the server's environment")
    expect(github.requests.filter((r) => r.path.includes('/pulls/'))).toEqual([])
  })

  it('--dry-run runs beside the server without its lock and changes nothing', async () => {
    await h.start(env)
    const callsBefore = h.slack.calls.length
    const result = await runCliAsync('reconcile', ['--dry-run'], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(`would change ${REPO}#20: merged`)
    expect(h.service!.entries().some((e) => e.msg === 'reconcile finished')).toBe(false)
    expect(h.slack.calls.length).toBe(callsBefore)
  })
})
