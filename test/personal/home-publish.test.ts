import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness } from '../helpers/personal-setup.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * Issue 31.2: views.publish is a change like chat.update: one paced call through the message client that
 * never retries by itself. A failed publish is said once and left to the next app_home_opened or click,
 * never repeated inside the client behind the pacer's back.
 */
const DAVE = 'U0DAVE'

describe('the home tab published as a change', () => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))

  beforeEach(async () => {
    h.slack.users.set(DAVE, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, { git_provider: 'github', users: { dave: DAVE }, mappings: { Codertocat: { 'Hello-World': { channel: 'C0000000001' } } } })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
    }), { clock: () => BERLIN.wednesdayMorning })
  })

  it('makes one views.publish call when Slack fails it, and publishes at the next opening', async () => {
    h.slack.faults.push({ method: 'views.publish', fault: { status: 500 } })
    expect((await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(DAVE, 'Ev1'))).status).toBe(200)
    await waitFor('the failure said', () => h.service!.entries().some((e) => e.msg === 'slack home tab not published'))
    // The retrying client would have sent it again about a second later.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(h.slack.count('views.publish')).toBe(1)
    expect(h.slack.views.has(DAVE)).toBe(false)

    expect((await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(DAVE, 'Ev2'))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.views.has(DAVE))
    expect(h.slack.count('views.publish')).toBe(2)
  })
})
