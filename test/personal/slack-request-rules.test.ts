import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { clickPayload, signedInteraction, TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 30.8, 30.9 and 30.10 on a real server with the fake Slack, signed as Slack signs: one api_app_id rule
 * for clicks, commands and events; an event without an event_id is nobody's retry; a response_url never
 * reaches the log, not even inside the error of a failed answer.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const ERIN = 'U0ERIN'
const COMMANDS = '/webhook/slack/commands'
const EVENTS = '/webhook/slack/events'

describe('Slack requests from outside', () => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))

  beforeEach(async () => {
    h.slack.users.set(DAVE, { tz: 'Europe/Berlin' })
    h.slack.users.set(ERIN, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, {
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, users: { dave: DAVE, erin: ERIN, Codertocat: 'U0AUTHOR' },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
    }), { clock: () => BERLIN.wednesdayMorning })
  })

  const withoutAppId = (form: string) => {
    const fields = new URLSearchParams(form)
    fields.delete('api_app_id')
    return fields.toString()
  }

  it('refuses a signed command, event and click that name no api_app_id, alike', async () => {
    const click = signedInteraction((({ api_app_id: _, ...rest }) => rest)(clickPayload({ user: DAVE, value: 'github:Codertocat/Hello-World#9' })))
    expect((await fetch(`${h.service!.url}/webhook/slack/interactions`, { method: 'POST', headers: click.headers, body: click.body })).status).toBe(200)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'rejected slack interaction', reason: 'other_app' }))

    const command = await sendSignedSlack(h.service!.url, COMMANDS, withoutAppId(commandForm(DAVE, 'dm on')))
    expect(((await command.json()) as { text?: string }).text).toMatch(/another workspace/)
    const event = JSON.parse(homeOpened(DAVE, 'Ev-no-app')) as Record<string, unknown>
    delete event.api_app_id
    expect((await sendSignedSlack(h.service!.url, EVENTS, JSON.stringify(event))).status).toBe(200)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'ignored slack event', reason: 'wrong_workspace' }))
    await new Promise((r) => setTimeout(r, 200))
    expect(h.slack.count('views.publish')).toBe(0)
    // The same event with the app's id is taken, and shows the refused command changed nothing.
    expect((await sendSignedSlack(h.service!.url, EVENTS, homeOpened(DAVE, 'Ev-app'))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.views.has(DAVE))
    expect(JSON.stringify(h.slack.views.get(DAVE))).toMatch(/Your direct messages:\* off/)
  })

  it('acts on two events without an event_id, from two people: neither is taken for the other\'s retry', async () => {
    const opened = (user: string) => {
      const event = JSON.parse(homeOpened(user, 'unused')) as Record<string, unknown>
      delete event.event_id
      return JSON.stringify(event)
    }
    expect((await sendSignedSlack(h.service!.url, EVENTS, opened(DAVE))).status).toBe(200)
    expect((await sendSignedSlack(h.service!.url, EVENTS, opened(ERIN))).status).toBe(200)
    await waitFor('both home tabs', () => h.slack.views.has(DAVE) && h.slack.views.has(ERIN))
    expect(h.service!.entries().filter((e) => e.reason === 'retried_event')).toEqual([])
  })

  it('logs no part of a response_url with user-info whose answer fails to send', async () => {
    const payload = pullRequest('opened', 9)
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }]
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload })
    expect(await h.service!.settle(10_000)).toBe(true)
    const slack = new URL(h.slack.url)
    // Slack's origin (SLACK_API_URL), so it is answered there; fetch refuses a URL with credentials and says so.
    const responseUrl = `${slack.protocol}//hook-user:s3cr3t-pass@${slack.host}/commands/T0ACME/1/secret-part`
    expect(((await (await sendSignedSlack(h.service!.url, COMMANDS, commandForm(DAVE, 'mine', { response_url: responseUrl }))).json()) as { text?: string }).text).toBe('Looking…')
    await waitFor('the failed answer\'s log line', () => h.service!.entries().some((e) => e.msg === 'slack command answer failed'))
    const log = h.service!.logs.join('\n')
    for (const part of ['hook-user', 's3cr3t-pass', 'secret-part', '/commands/T0ACME']) expect(log).not.toContain(part)
    expect(h.service!.entries().find((e) => e.msg === 'slack command answer failed')).toMatchObject({ error: expect.stringContaining('response_url') })
  })
})
