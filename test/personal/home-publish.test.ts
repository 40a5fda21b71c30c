import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness } from '../helpers/personal-setup.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * Issue 31.2: views.publish is a change like chat.update: one paced call through the message client that
 * never retries by itself. The home tab is published after the ack, so nothing else would bring it back:
 * a transient failure is tried again through the pacer with the batches' backoff, a bounded number of times,
 * and then said once and left to the next app_home_opened or click.
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
  const opened = async (eventId: string) => expect((await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(DAVE, eventId))).status).toBe(200)

  it('publishes the tab on a paced retry when Slack fails the first views.publish', async () => {
    h.slack.faults.push({ method: 'views.publish', fault: { status: 500 } })
    await opened('Ev1')
    await waitFor('the home tab', () => h.slack.views.has(DAVE))
    expect(h.slack.count('views.publish')).toBe(2)
    expect(h.service!.entries().filter((e) => e.msg === 'slack call failed, retrying').map((e) => e.call)).toEqual(['views.publish'])
    expect(h.service!.entries().some((e) => e.msg === 'slack home tab not published')).toBe(false)
  })

  it('gives up after three tries, says so once, and publishes at the next opening', async () => {
    for (let i = 0; i < 3; i++) h.slack.faults.push({ method: 'views.publish', fault: { status: 500 } })
    await opened('Ev1')
    await waitFor('the failure said', () => h.service!.entries().some((e) => e.msg === 'slack home tab not published'))
    // Nothing more after the last try: the failure is said once the publish has given up.
    expect(h.slack.count('views.publish')).toBe(3)
    expect(h.slack.views.has(DAVE)).toBe(false)

    await opened('Ev2')
    await waitFor('the home tab', () => h.slack.views.has(DAVE))
    expect(h.slack.count('views.publish')).toBe(4)
  })
})
