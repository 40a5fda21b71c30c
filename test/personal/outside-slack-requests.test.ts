import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { clickPayload, signedInteraction, TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 30.5, 30.8, 30.9 and 30.10 on a real server with the fake Slack, signed as Slack signs: what a host's
 * payload says is text in every Slack surface; one api_app_id rule for clicks, commands and events; an event
 * without an event_id is nobody's retry; a response_url never reaches the log, not even inside the error of a
 * failed answer.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const ERIN = 'U0ERIN'
const AUTHOR = 'U0AUTHOR'
const COMMANDS = '/webhook/slack/commands'
const EVENTS = '/webhook/slack/events'

const HOSTILE = 'Eve <!here> <https://evil.example/login|Log in to GitHub>'
const URL_OF_PR = `https://github.com/Codertocat/Hello-World/pull/9|${HOSTILE}`
/** The URL as it may stand inside `<…|label>`: escaped as any text, and its `|` encoded so it cannot end the target. */
const URL_IN_LINK = 'https://github.com/Codertocat/Hello-World/pull/9%7CEve &lt;!here&gt; &lt;https://evil.example/login%7CLog in to GitHub&gt;'

/** Slack would read `text` with no live special mention, and every link in it points at the pull request's URL. */
function expectInert(surface: string, text: string): void {
  expect(text, surface).not.toMatch(/<!(here|channel|everyone)/)
  expect(text, surface).not.toContain('<https://evil.example')
  const targets = [...text.matchAll(/<([^@!#][^|>]*)\|/g)].map((m) => m[1])
  expect(targets.length, surface).toBeGreaterThan(0)
  for (const target of targets) expect(target, surface).toBe(URL_IN_LINK)
}

/** The mrkdwn texts of Block Kit blocks (sections and context elements): what Slack reads for mentions and links. */
function mrkdwnOf(blocks: unknown): string {
  const texts: string[] = []
  for (const block of blocks as Array<{ text?: { type?: string; text?: string }; elements?: Array<{ type?: string; text?: string }> }>) {
    for (const part of [block.text, ...(block.elements ?? [])]) if (part?.type === 'mrkdwn' && part.text !== undefined) texts.push(part.text)
  }
  return texts.join('\n')
}

describe('Slack requests and answers from outside', () => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))

  beforeEach(async () => {
    for (const user of [DAVE, ERIN, AUTHOR]) h.slack.users.set(user, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, {
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, users: { dave: DAVE, erin: ERIN, Codertocat: AUTHOR },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
    }), { clock: () => BERLIN.wednesdayMorning, directMessageIntervalMs: 50 })
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
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'rejected slack event', reason: 'other_app' }))
    // Each was refused before its answer, and a publish it started would have been logged by then.
    expect(h.service!.entries().some((e) => e.msg === 'home tab publish started')).toBe(false)
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
    expect(h.service!.entries().filter((e) => e.reason === 'already_taken')).toEqual([])
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

  it('is escaped in the channel message, /prherald mine, the home tab and the direct message alike', async () => {
    const dmOn = await sendSignedSlack(h.service!.url, COMMANDS, commandForm(DAVE, 'dm on'))
    expect(((await dmOn.json()) as { text?: string }).text).toMatch(/Direct messages are on/)
    const payload = pullRequest('opened', 9, { title: `Fix <!channel> <https://evil.example|the bug>` })
    payload.pull_request.html_url = URL_OF_PR
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }, { ...payload.pull_request.user, login: HOSTILE }]
    payload.pull_request.requested_teams = [{ id: 1, slug: 'evil-team', name: HOSTILE }]
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload })
    expect(await h.service!.settle(10_000)).toBe(true)

    const [posted] = h.slack.messagesIn(CHANNEL)
    expectInert('channel message', mrkdwnOf(posted!.blocks))

    await waitFor('dave\'s direct message', () => h.slack.messagesIn('D0DAVE').length === 1)
    expectInert('direct message', h.slack.messagesIn('D0DAVE')[0]!.text)

    const responseUrl = `${new URL(h.slack.url).origin}/commands/T0ACME/1/mine`
    const mine = await sendSignedSlack(h.service!.url, COMMANDS, commandForm(AUTHOR, 'mine', { response_url: responseUrl }))
    expect(((await mine.json()) as { text?: string }).text).toBe('Looking…')
    await waitFor('the late answer', () => h.slack.calls.some((c) => c.method.startsWith('commands/')))
    const answer = (h.slack.calls.find((c) => c.method.startsWith('commands/'))!.body as { text: string }).text
    expect(answer).toContain('waits on dave, Eve &lt;!here&gt; &lt;https://evil.example/login|Log in to GitHub&gt;')
    expectInert('/prherald mine', answer)

    expect((await sendSignedSlack(h.service!.url, EVENTS, homeOpened(AUTHOR, 'Ev-home'))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.views.has(AUTHOR))
    const home = mrkdwnOf(h.slack.views.get(AUTHOR)!.blocks)
    expect(home).toContain('Eve &lt;!here&gt;')
    expectInert('home tab', home)
  })
})
