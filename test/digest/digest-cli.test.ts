import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { announce, digestIn, OWNER } from './digest-e2e-helpers.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * prherald-digest as a process (the built CLI), against pull requests real signed deliveries announced:
 * dry run, a skipped day, posting itself with no server, and handing the run to a running server over the
 * control channel. The announcing service runs on a faked `Date` (Thursday); the CLI gets --at explicitly.
 */
const TEAM = 'C0000000001'
const OTHER_TEAM = 'C0000000002'
const FRIDAY = '2026-11-20T09:00:00Z'

const h = usePrherald({
  config: {
    mappings: { [OWNER]: { 'Hello-World': { channel: TEAM }, 'Other-Repo': { channel: OTHER_TEAM } } },
  },
})

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(new Date('2026-11-19T10:00:00Z'))
  await h.start(env())
  await announce(h.service!, 'Hello-World', 1, { title: 'Add rate limits' })
  await announce(h.service!, 'Other-Repo', 2, { title: 'Retry webhooks' })
})
afterEach(async () => {
  vi.useRealTimers()
})

const env = () => h.env()
const digestCli = (args: string[]) => runCliAsync('digest', args, env(), h.dir.path)
const stopService = async () => {
  await h.stop()
}
const posts = () => h.slack.calls.filter((c) => c.method === 'chat.postMessage').length

describe('prherald-digest', () => {
  it('--dry-run prints each channel\'s digest and the summary, and posts nothing (with a server running too)', async () => {
    const before = posts()
    const result = await digestCli(['--dry-run', '--at', FRIDAY])
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(result.stdout.split('\n')).toEqual([
      `${TEAM}: 1 pull request (schedule 0 9 * * 1-5)`,
      '  1 pull request waiting since before today; the list is in the thread.',
      expect.stringMatching(/^ {4}• <https:\/\/github\.com\/Codertocat\/Hello-World\/pull\/1\|PR #1: Add rate limits> · /),
      `${OTHER_TEAM}: 1 pull request (schedule 0 9 * * 1-5)`,
      '  1 pull request waiting since before today; the list is in the thread.',
      expect.stringMatching(/PR #2: Retry webhooks/),
      'dry run: 2 pull requests would be listed for 2026-11-20; nothing posted',
      '',
    ])
    expect(posts()).toBe(before)
  })

  it('a weekend prints the skip and its reason and posts nothing', async () => {
    await stopService()
    const before = posts()
    const result = await digestCli(['--at', '2026-11-21T09:00:00+01:00'])
    expect(result.status).toBe(0)
    expect(result.stdout).toBe('skipped digest for 2026-11-21: weekend\n')
    expect(posts()).toBe(before)
  })

  it('with no server running it posts itself, holding the server lock only while it runs; --channel limits it', async () => {
    await stopService()
    const result = await digestCli(['--at', FRIDAY, '--channel', OTHER_TEAM])
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(result.stdout).toBe(`${OTHER_TEAM}: 1 pull request (schedule 0 9 * * 1-5)\nposted the digest for 2026-11-20 in 1 channel\n`)
    const { parents, replies } = digestIn(h.slack, OTHER_TEAM)
    expect(parents).toHaveLength(1)
    expect(replies.map((r) => r.threadTs)).toEqual([parents[0]!.ts])
    expect(digestIn(h.slack, TEAM).parents).toEqual([])
    // The lock is released: a server starts right after.
    await h.start(env())
  })

  it('with a server running it hands the run to the server over the control channel, which posts it', async () => {
    expect(existsSync(join(h.dir.path, 'prherald.db-control.sock'))).toBe(true)
    const result = await digestCli(['--at', FRIDAY])
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(result.stdout).toBe([
      `${TEAM}: 1 pull request (schedule 0 9 * * 1-5)`,
      `${OTHER_TEAM}: 1 pull request (schedule 0 9 * * 1-5)`,
      'posted the digest for 2026-11-20 in 2 channels',
      '',
    ].join('\n'))
    // The server posted it: its log has each channel's digest (the CLI's own process logs nothing here).
    expect(h.service!.entries().filter((e) => e.msg === 'digest posted').map((e) => e.channel)).toEqual([TEAM, OTHER_TEAM])
    expect(digestIn(h.slack, TEAM).parents).toHaveLength(1)
    expect(digestIn(h.slack, OTHER_TEAM).parents).toHaveLength(1)
  })

  it('a repeated run posts no second digest in a channel that day, however it is asked; --force does', async () => {
    expect((await digestCli(['--at', FRIDAY])).status).toBe(0)
    const again = await digestCli(['--at', FRIDAY])
    expect(again.status).toBe(0)
    expect(again.stdout).toContain(`${TEAM}: already had its digest for 2026-11-20; --force posts another`)
    expect(digestIn(h.slack, TEAM).parents).toHaveLength(1)
    expect(digestIn(h.slack, OTHER_TEAM).parents).toHaveLength(1)
    // The same without a server: the claim is in the database, not in the server's memory.
    await stopService()
    expect((await digestCli(['--at', FRIDAY, '--channel', TEAM])).stdout).toContain('already had its digest')
    expect(digestIn(h.slack, TEAM).parents).toHaveLength(1)
    const forced = await digestCli(['--at', FRIDAY, '--channel', TEAM, '--force'])
    expect(forced.status).toBe(0)
    expect(digestIn(h.slack, TEAM).parents).toHaveLength(2)
  })

  it('a Slack failure in the server\'s run exits 1; the server logs the error with its fix', async () => {
    h.slack.channelErrors.set(TEAM, 'channel_not_found')
    const result = await digestCli(['--at', FRIDAY])
    expect(result.status).toBe(1)
    expect(result.stdout).toContain(`${TEAM}: failed, see the server log`)
    expect(result.stdout).toContain('posted the digest for 2026-11-20 in 1 channel; 1 channel failed')
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'digest failed in a channel', channel: TEAM }))
  })

  it('--at without an offset is refused with the fix, before anything runs', async () => {
    const result = await digestCli(['--at', '2026-11-20 09:00'])
    expect(result.status).toBe(1)
    expect(result.stderr).toBe('prherald: --at 2026-11-20 09:00 is not an ISO date-time with an offset\n  fix: e.g. --at 2026-11-23T09:00:00+01:00 or --at 2026-11-23T08:00:00Z\n')
  })

  it('posting with no server and no SLACK_BOT_TOKEN says what to set', async () => {
    await stopService()
    const result = await runCliAsync('digest', ['--at', FRIDAY], { ...env(), SLACK_BOT_TOKEN: '' }, h.dir.path)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('SLACK_BOT_TOKEN is not set')
    expect(result.stderr).toContain('fix: set SLACK_BOT_TOKEN')
  })
})
