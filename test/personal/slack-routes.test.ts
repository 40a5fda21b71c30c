import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 24.2, 24.3 and 24.6 end to end: `/prherald` and the Events API on a real server with the fake Slack,
 * signed as Slack signs them; refused signatures and stale timestamps, another workspace, a response_url that
 * is not Slack's, a retried event, a repeated trigger_id.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const COMMANDS = '/webhook/slack/commands'
const EVENTS = '/webhook/slack/events'

describe.each(personalStores())('/prherald and the home tab ($name)', ({ databaseUrl }) => {
  const h = personalHarness(databaseUrl)

  beforeEach(async () => {
    h.slack.users.set(DAVE, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, {
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, users: { dave: DAVE, Codertocat: 'U0AUTHOR' },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...h.database.env,
    }), { clock: () => BERLIN.wednesdayMorning, directMessageIntervalMs: 50 })
  })

  const command = async (user: string, text: string, over: Record<string, string> = {}) => {
    const res = await sendSignedSlack(h.service!.url, COMMANDS, commandForm(user, text, over))
    expect(res.status).toBe(200)
    return ((await res.json()) as { text?: string }).text
  }
  const requested = () => {
    const payload = pullRequest('opened', 9)
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }]
    return payload
  }

  it('turns direct messages on for the person who asked, and they then hear of their review requests', async () => {
    expect(await command(DAVE, 'dm on')).toMatch(/Direct messages are on/)
    expect(await command(DAVE, 'hours 09:00-18:00')).toMatch(/09:00-18:00, Monday to Friday, Europe\/Berlin/)
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: requested() })
    await waitFor('dave\'s direct message', () => h.slack.messagesIn('D0DAVE').length === 1)
    expect(h.slack.messagesIn('D0DAVE')[0]!.text).toMatch(/^:eyes: Your review is requested on <https:\/\/github.com\/Codertocat\/Hello-World\/pull\/9\|/)
  })

  it('answers the lists after the acknowledgement, at the response_url, only when it is Slack\'s', async () => {
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: requested() })
    expect(await h.service!.settle(10_000)).toBe(true)
    const responseUrl = `${new URL(h.slack.url).origin}/commands/T0ACME/1/secret-part`
    expect(await command(DAVE, 'mine', { response_url: responseUrl })).toBe('Looking…')
    await waitFor('the late answer', () => h.slack.calls.some((c) => c.method.startsWith('commands/')))
    const answer = h.slack.calls.find((c) => c.method.startsWith('commands/'))!.body as { text: string; response_type: string }
    expect(answer.response_type).toBe('ephemeral')
    expect(answer.text).toMatch(/^\*Waiting on you\*\n• <https:\/\/github.com\/Codertocat\/Hello-World\/pull\/9\|/)
    // Anywhere else: refused, and the URL is never logged.
    expect(await command(DAVE, 'channel', { response_url: 'https://attacker.example/collect' })).toMatch(/cannot be sent/)
    expect(h.service!.logs.join('\n')).not.toMatch(/secret-part|attacker\.example/)
  })

  it('tells an unmapped person how to be mapped, and answers help', async () => {
    expect(await command('U0STRANGER', 'dm on')).toMatch(/^prherald does not know you yet: .*users:/)
    expect(await command('U0STRANGER', 'help')).toMatch(/\/prherald dm on/)
  })

  it('refuses a bad signature and a stale timestamp with 401, another workspace, and a repeated trigger_id', async () => {
    const form = commandForm(DAVE, 'dm on')
    expect((await sendSignedSlack(h.service!.url, COMMANDS, form, { secret: 'wrong' })).status).toBe(401)
    expect((await sendSignedSlack(h.service!.url, COMMANDS, form, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401)
    expect(await command(DAVE, 'dm on', { team_id: 'T0OTHER' })).toMatch(/another workspace/)
    expect((await sendSignedSlack(h.service!.url, COMMANDS, 'x'.repeat(70_000))).status).toBe(413)
    const once = commandForm(DAVE, 'dm off', { trigger_id: 'trigger-1' })
    expect(((await (await sendSignedSlack(h.service!.url, COMMANDS, once)).json()) as { text?: string }).text).toMatch(/off for you/)
    expect(await (await sendSignedSlack(h.service!.url, COMMANDS, once)).json()).toEqual({})
    expect(await (await sendSignedSlack(h.service!.url, COMMANDS, 'ssl_check=1&token=x')).json()).toEqual({})
  })

  it('answers url_verification only when signed, publishes the home tab once per event, and ignores another workspace', async () => {
    const challenge = JSON.stringify({ type: 'url_verification', challenge: 'c-123', token: 'legacy' })
    expect((await sendSignedSlack(h.service!.url, EVENTS, challenge, { secret: 'wrong' })).status).toBe(401)
    expect(await (await sendSignedSlack(h.service!.url, EVENTS, challenge)).json()).toEqual({ challenge: 'c-123' })
    const opened = (eventId: string, team?: string) => homeOpened(DAVE, eventId, team)
    expect((await sendSignedSlack(h.service!.url, EVENTS, opened('Ev1'))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.views.has(DAVE))
    expect(JSON.stringify(h.slack.views.get(DAVE))).toMatch(/Your direct messages:\* off/)
    // Slack's retry of the same event: acknowledged, not acted on again.
    expect((await sendSignedSlack(h.service!.url, EVENTS, opened('Ev1'), { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } })).status).toBe(200)
    expect((await sendSignedSlack(h.service!.url, EVENTS, opened('Ev2', 'T0OTHER'))).status).toBe(200)
    expect((await sendSignedSlack(h.service!.url, EVENTS, '{not json')).status).toBe(200)
    // Each was decided before its answer, and a publish it started would have been logged by then.
    expect(h.service!.entries().filter((e) => e.msg === 'home tab publish started')).toHaveLength(1)
    expect(h.slack.count('views.publish')).toBe(1)
  })
})
