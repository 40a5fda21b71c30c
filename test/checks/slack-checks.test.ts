import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PERSONAL_SCOPES } from '../../src/checks/personal-scopes.ts'
import { slackAccessCheck, slackAuthCheck } from '../../src/checks/slack-auth-check.ts'
import { slackChannelCheck } from '../../src/checks/slack-channel-check.ts'
import { validateEntries } from '../../src/checks/validate-entries.ts'
import { github } from '../../src/hosts/github/index.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'

let slack: FakeSlack
beforeEach(async () => {
  slack = await startFakeSlack()
})
afterEach(async () => slack.close())

const options = () => ({ token: TEST_SLACK_TOKEN, apiUrl: slack.url })

describe('slack-auth', () => {
  it('is OK when auth.test succeeds and x-oauth-scopes has chat:write and reactions:write, sending the token as Bearer', async () => {
    const result = await slackAuthCheck(options())
    expect(result).toMatchObject({ name: 'slack-auth', status: 'OK' })
    expect(result.reason).toContain('chat:write, reactions:write')
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test'])
    expect(slack.calls[0]!.headers.authorization).toBe(`Bearer ${TEST_SLACK_TOKEN}`)
  })

  it('FAILs naming the missing scope, with the fix', async () => {
    slack.scopes = ['chat:write', 'channels:read']
    const result = await slackAuthCheck(options())
    expect(result.status).toBe('FAIL')
    expect(result.reason).toBe('the token lacks the scope reactions:write')
    expect(result.fix).toMatch(/add the bot scope reactions:write .* reinstall/)
  })

  it('FAILs without users:read.email when slack.lookup_users_by_email needs it, and names it when present', async () => {
    const result = await slackAuthCheck(options(), [], ['users:read.email'])
    expect(result).toMatchObject({ status: 'FAIL', reason: 'the token lacks the scope users:read.email' })
    expect(result.fix).toMatch(/add the bot scope users:read.email .* reinstall/)
    slack.scopes.push('users:read.email')
    const ok = await slackAuthCheck(options(), [], ['users:read.email'])
    expect(ok.status).toBe('OK')
    expect(ok.reason).toContain('users:read.email')
  })

  it('WARNs, never FAILs, when the token lacks the history scopes; im:history and mpim:history only when a D… channel is mapped', async () => {
    slack.scopes = ['chat:write', 'reactions:write', 'channels:read', 'groups:read', 'groups:history']
    const result = await slackAuthCheck(options(), ['C0000000001'])
    expect(result.status).toBe('WARN')
    expect(result.reason).toContain('the token lacks channels:history: a post whose answer is lost cannot be looked up in the channel, and may show twice')
    expect(result.fix).toMatch(/add the bot scope channels:history .* reinstall/)

    slack.scopes.push('channels:history')
    expect(await slackAuthCheck(options(), ['C0000000001'])).toMatchObject({ status: 'OK' })
    const dm = await slackAuthCheck(options(), ['C0000000001', 'D0000000001'])
    expect(dm).toMatchObject({ status: 'WARN' })
    expect(dm.fix).toContain('add the bot scopes im:history, mpim:history')
  })

  it('a WARN from slack-auth still runs the channel checks, and the run passes', async () => {
    slack.scopes = ['chat:write', 'reactions:write', 'channels:read', 'groups:read']
    slack.channels.set('C0000000001', {})
    const report = await validateEntries(
      { host: github, mappings: { acme: { api: { channel: 'C0000000001' } } }, slack: options(), git: undefined },
      [{ owner: 'acme', repo: 'api' }],
    )
    expect(report.auth).toMatchObject({ status: 'WARN', reason: expect.stringContaining('lacks channels:history, groups:history') })
    expect(report.entries[0]!.results.find((r) => r.name === 'slack-channel')).toMatchObject({ status: 'OK' })
  })

  it('checks the personal scopes from the same auth.test answer, and not at all when slack-auth FAILs', async () => {
    const personal = [{ scope: 'im:write', feature: PERSONAL_SCOPES['im:write'] }]
    const lacking = await slackAccessCheck(options(), [], [], personal)
    expect(lacking.auth.status).toBe('OK')
    expect(lacking.scopes).toMatchObject([{ name: 'slack-scope', target: 'im:write', status: 'WARN', reason: 'the token lacks im:write, which disables direct messages' }])
    expect(slack.count('auth.test')).toBe(1)

    slack.scopes = ['chat:write']
    const failed = await slackAccessCheck(options(), [], [], personal)
    expect(failed.auth.status).toBe('FAIL')
    expect(failed.scopes).toEqual([])
  })

  it('FAILs when Slack rejects the token', async () => {
    slack.faults.push({ method: 'auth.test', fault: { error: 'invalid_auth' } })
    const result = await slackAuthCheck(options())
    expect(result).toMatchObject({ status: 'FAIL', reason: 'auth.test answered invalid_auth' })
    expect(result.fix).toContain('SLACK_BOT_TOKEN is not valid')
  })

  it('FAILs without a token, and when Slack cannot be reached, and never prints the token', async () => {
    expect(await slackAuthCheck(undefined)).toMatchObject({ status: 'FAIL', reason: 'SLACK_BOT_TOKEN is not set' })
    const unreachable = await slackAuthCheck({ token: TEST_SLACK_TOKEN, apiUrl: 'http://127.0.0.1:9/api/' })
    expect(unreachable.status).toBe('FAIL')
    expect(unreachable.reason).toBe('Slack unreachable at http://127.0.0.1:9/api/ (ECONNREFUSED)')
    expect(JSON.stringify(unreachable)).not.toContain(TEST_SLACK_TOKEN)
  })

  it('FAILs as Slack down when Slack answers 503 or does not answer within the timeout', async () => {
    slack.faults.push({ method: 'auth.test', fault: { status: 503 } })
    expect(await slackAuthCheck(options())).toMatchObject({ status: 'FAIL', reason: 'auth.test answered http_503', unavailable: true })
    slack.faults.push({ method: 'auth.test', fault: { lostAnswer: 'hang' } })
    expect(await slackAuthCheck({ ...options(), timeoutMs: 200 })).toMatchObject({
      status: 'FAIL', reason: `Slack unreachable at ${slack.url} (The operation was aborted due to timeout)`, unavailable: true,
    })
  })
})

describe('slack-channel', () => {
  it('is OK for an existing, unarchived channel the bot is in', async () => {
    slack.channels.set('C0000000001', { name: 'eng' })
    const result = await slackChannelCheck(options(), 'acme/api', 'C0000000001')
    expect(result).toMatchObject({ name: 'slack-channel', target: 'acme/api', status: 'OK' })
    expect(result.reason).toBe('C0000000001 (#eng) exists, not archived, bot is a member')
    expect(slack.calls[0]).toMatchObject({ method: 'conversations.info', body: { channel: 'C0000000001' } })
  })

  it('FAILs for a channel Slack does not find, an archived channel, and one the bot is not in', async () => {
    slack.channels.set('C0000000002', { name: 'old', is_archived: true })
    slack.channels.set('C0000000003', { name: 'quiet', is_member: false })
    const missing = await slackChannelCheck(options(), 'acme/api', 'C0000000001')
    expect(missing).toMatchObject({ status: 'FAIL', reason: 'C0000000001: conversations.info answered channel_not_found' })
    expect(missing.fix).toContain('invite')
    const archived = await slackChannelCheck(options(), 'acme/api', 'C0000000002')
    expect(archived).toMatchObject({ status: 'FAIL', reason: 'C0000000002 (#old) is archived' })
    const notMember = await slackChannelCheck(options(), 'acme/api', 'C0000000003')
    expect(notMember).toMatchObject({ status: 'FAIL', reason: 'the bot is not a member of C0000000003 (#quiet)' })
    expect(notMember.fix).toBe('invite the bot: in #quiet, type /invite @your-bot')
  })

  it('runs for every channel an entry can post to, path rules included, asking once per channel', async () => {
    for (const id of ['C0000000001', 'C0000000002']) slack.channels.set(id, {})
    const mappings = {
      acme: {
        '*': { channel: 'C0000000001' },
        mono: { paths: { 'billing/': { channel: 'C0000000002' }, 'web/': { channel: 'C0000000003' } } },
      },
    }
    const report = await validateEntries({ host: github, mappings, slack: options(), git: undefined }, [{ owner: 'acme', repo: 'mono' }, { owner: 'acme', repo: '*' }])
    const channelResults = report.entries.flatMap((e) => e.results.filter((r) => r.name === 'slack-channel').map((r) => [r.target, r.status, r.reason.split(' ')[0]]))
    expect(channelResults).toEqual([
      ['acme/mono', 'OK', 'C0000000001'],
      ['acme/mono', 'OK', 'C0000000002'],
      ['acme/mono', 'FAIL', 'C0000000003:'],
      ['acme/*', 'OK', 'C0000000001'],
    ])
    expect(slack.count('conversations.info')).toBe(3)
    expect(slack.count('auth.test')).toBe(1)
  })

  it('SKIPs when slack-auth failed, instead of repeating the same token error per channel', async () => {
    slack.faults.push({ method: 'auth.test', fault: { error: 'token_revoked' } })
    const report = await validateEntries(
      { host: github, mappings: { acme: { api: { channel: 'C0000000001' } } }, slack: options(), git: undefined },
      [{ owner: 'acme', repo: 'api' }],
    )
    expect(report.auth?.status).toBe('FAIL')
    expect(report.entries[0]!.results.find((r) => r.name === 'slack-channel')).toMatchObject({ status: 'SKIP', reason: 'C0000000001 not checked: slack-auth failed' })
    expect(slack.count('conversations.info')).toBe(0)
  })
})
