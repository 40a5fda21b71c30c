import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { homeButtons, homeClickPayload, sendInteraction, TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 24.3 end to end, on both stores: the home tab's preferences are buttons, clicked through the
 * interactions route with signed block_actions payloads from a home view. Only the view's owner changes
 * anything, only in the token's workspace; the change is stored (it survives a restart) and the tab republished.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const ERIN = 'U0ERIN'
const PR_KEY = 'github:Codertocat/Hello-World#9'

describe.each(personalStores())('the home tab\'s buttons ($name)', ({ databaseUrl }) => {
  const h = personalHarness(databaseUrl)
  let events = 0

  const start = async () => {
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...h.database.env,
    }), { clock: () => BERLIN.wednesdayMorning, directMessageIntervalMs: 50 })
  }
  beforeEach(async () => {
    h.slack.users.set(DAVE, { tz: 'Europe/Berlin' })
    h.slack.users.set(ERIN, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, {
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, users: { dave: DAVE, erin: ERIN, Codertocat: 'U0AUTHOR' },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
    await start()
  })

  /** Opens `user`'s home tab and waits for the view it publishes. */
  const openHome = async (user: string) => {
    const before = h.slack.count('views.publish')
    expect((await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(user, `Ev${++events}`))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.count('views.publish') > before)
    return h.slack.views.get(user)!
  }
  const click = async (user: string, view: Parameters<typeof homeClickPayload>[0]['view'], actionId: string, team?: string) => {
    const res = await sendInteraction(h.service!.url, homeClickPayload({ user, view, actionId, team }))
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
  }
  const text = (user: string) => JSON.stringify(h.slack.views.get(user)?.blocks)
  const publishesStarted = () => h.service!.entries().filter((e) => e.msg === 'home tab publish started').length
  const requested = () => {
    const payload = pullRequest('opened', 9)
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }]
    return payload
  }

  it('turns direct messages on for the owner only, stores it across a restart, and republishes the tab', async () => {
    const view = await openHome(DAVE)
    expect(text(DAVE)).toMatch(/Your direct messages:\* off/)
    expect(homeButtons(view).map((b) => b.action_id)).toEqual(['prherald_home_dm_on'])
    // erin clicks a copy of dave's view, and dave clicks from another workspace: nothing changes, nothing is published.
    await click(ERIN, view, 'prherald_home_dm_on')
    await click(DAVE, view, 'prherald_home_dm_on', 'T0OTHER')
    // A click is acted on before it is answered, and a publish it starts is logged by then: none was.
    expect(publishesStarted()).toBe(1)
    expect(h.slack.count('views.publish')).toBe(1)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'rejected slack interaction', reason: 'not_the_view_owner', slack_user: ERIN }))
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'rejected slack interaction', reason: 'other_workspace' }))
    expect(await openHome(DAVE)).toMatchObject({ private_metadata: JSON.stringify({ owner: DAVE }) })
    expect(text(DAVE)).toMatch(/Your direct messages:\* off/)

    await click(DAVE, view, 'prherald_home_dm_on')
    await waitFor('the republished tab', () => /Your direct messages:\* on/.test(text(DAVE)))
    expect(homeButtons(h.slack.views.get(DAVE)!).map((b) => b.action_id)).toEqual(['prherald_home_dm_off'])
    // Stored durably: after a restart dave hears of the review asked of him; erin, who clicked, does not.
    await h.service!.stop()
    await start()
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: requested() })
    await waitFor('dave\'s direct message', () => h.slack.messagesIn('D0DAVE').length === 1)
    expect(h.slack.messagesIn('D0DAVE')[0]!.text).toMatch(/^:eyes: Your review is requested on </)

    await click(DAVE, h.slack.views.get(DAVE)!, 'prherald_home_dm_off')
    await waitFor('the republished tab', () => /Your direct messages:\* off/.test(text(DAVE)))
  })

  it('lists the owner\'s mutes with Unmute buttons; another person\'s click keeps the mute, the owner\'s removes it', async () => {
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: requested() })
    expect(await h.service!.settle(10_000)).toBe(true)
    const mute = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm(DAVE, 'mute https://github.com/Codertocat/Hello-World/pull/9'))
    expect(((await mute.json()) as { text: string }).text).toMatch(/^Muted/)
    const view = await openHome(DAVE)
    expect(text(DAVE)).toMatch(/\*Muted\* \(no direct messages about these\): 1/)
    expect(homeButtons(view)).toContainEqual(expect.objectContaining({ action_id: 'prherald_home_unmute', value: PR_KEY }))
    expect(text(DAVE)).toContain('<https://github.com/Codertocat/Hello-World/pull/9|Codertocat/Hello-World#9 ')

    await click(ERIN, view, 'prherald_home_unmute')
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'rejected slack interaction', reason: 'not_the_view_owner', slack_user: ERIN }))
    expect(publishesStarted()).toBe(1)
    await openHome(DAVE)
    expect(text(DAVE)).toMatch(/\*Muted\*/)

    await click(DAVE, view, 'prherald_home_unmute')
    await waitFor('the republished tab', () => !/\*Muted\*/.test(text(DAVE)))
    expect(homeButtons(h.slack.views.get(DAVE)!).map((b) => b.action_id)).toEqual(['prherald_home_dm_on'])
  })
})
