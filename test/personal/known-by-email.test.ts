import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { BERLIN, personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 24.1: a person is known through `users:` and the email look-up's cache read backwards. dave is not in
 * `users:`; the channel message's look-up (slack.lookup_users_by_email) matched his login to his Slack id, so
 * /prherald and his home tab know him as the git person `dave`.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'

describe.each(personalStores())('a person known by the email look-up ($name)', ({ databaseUrl }) => {
  const h = personalHarness(databaseUrl)
  let github: FakeGithub

  beforeEach(async () => {
    h.slack.scopes.push('users:read.email')
    h.slack.users.set(DAVE, { tz: 'Europe/Berlin' })
    h.slack.usersByEmail.set('dave@acme.example', DAVE)
    github = await startFakeGithub()
    github.users.set('dave', { email: 'dave@acme.example' })
    writeConfig(h.dir.path, {
      git_provider: 'github', slack: { lookup_users_by_email: true }, users: { Codertocat: 'U0AUTHOR' },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, GITHUB_TOKEN: 'ghp_test', GITHUB_API_URL: github.url, ...h.database.env,
    }), { clock: () => BERLIN.wednesdayMorning })
  })
  afterEach(async () => {
    await h.service?.stop()
    await github.close()
  })

  const command = async (user: string, text: string) =>
    ((await (await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm(user, text))).json()) as { text: string }).text

  it('answers /prherald and the home tab for a Slack user found by email, and not for one found by nobody', async () => {
    expect(await command(DAVE, 'dm on')).toMatch(/^prherald does not know you yet/)
    const payload = pullRequest('opened', 9)
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }]
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload })
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(JSON.stringify(h.slack.messagesIn(CHANNEL)[0]!.blocks)).toContain(`<@${DAVE}>`)

    expect(await command(DAVE, 'dm on')).toMatch(/Direct messages are on/)
    expect(await command('U0STRANGER', 'dm on')).toMatch(/^prherald does not know you yet/)
    expect((await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(DAVE, 'Ev1'))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.views.has(DAVE))
    const home = JSON.stringify(h.slack.views.get(DAVE)!.blocks)
    expect(home).toMatch(/\*Waiting on you\*\\n• <https:\/\/github.com\/Codertocat\/Hello-World\/pull\/9\|/)
    expect(home).toMatch(/Your direct messages:\* on/)
  })
})
