import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { nextRunOf, startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'

/**
 * Issue 24.1 end to end, on both stores: direct messages people opted into, held over quiet hours and sent
 * at the start of the person's day after a restart (on a fake clock), each once: a replay and a post of
 * unknown outcome send nothing twice.
 */
const CHANNEL = 'C0000000001'
/** The direct messages' sender, a timed job (docs/operations.md). */
const DIRECT_MESSAGES = 'direct-messages'
const AUTHOR = 'U0AUTHOR'
const AUTHOR_DM = 'D0AUTHOR'
const DAVE = 'U0DAVE'
const ERIN = 'U0ERIN'

describe.each(personalStores())('direct messages ($name)', ({ databaseUrl }) => {
  const h = personalHarness(databaseUrl)
  let clock: number

  beforeEach(async () => {
    h.slack.users.set(AUTHOR, { tz: 'Europe/Berlin' })
    h.slack.users.set(DAVE, {})
    h.slack.users.set(ERIN, {})
    h.slack.groups.set('S0BACKEND', [DAVE, ERIN])
    writeConfig(h.dir.path, {
      git_provider: 'github',
      notify: { direct_messages: 'opt_in' },
      users: { Codertocat: { slack: AUTHOR, direct_messages: 'on' }, dave: DAVE, erin: { slack: ERIN, direct_messages: 'on' } },
      teams: { backend: 'S0BACKEND' },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
  })

  const start = async () => {
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', { SLACK_API_URL: h.slack.url, ...h.database.env }), {
      clock: () => clock, directMessageIntervalMs: 50,
    })
  }
  const send = async (event: string, payload: unknown, deliveryId?: string) => {
    const res = await deliver(h.service!.url, 'github', { event, payload, ...(deliveryId ? { deliveryId } : {}) })
    expect(res.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  }
  const dms = (channel: string) => h.slack.messagesIn(channel)

  it('tells the author of an approval at once within their hours, once, and nobody of their own doing', async () => {
    clock = BERLIN.wednesdayMorning
    await start()
    await send('pull_request', pullRequest('opened', 1))
    await send('pull_request_review', review('approved', 1, 'dave'), 'review-1')
    await waitFor('the direct message', () => dms(AUTHOR_DM).length === 1)
    expect(dms(AUTHOR_DM)[0]!.text).toMatch(/^:white_check_mark: dave approved <https:\/\/github.com\/Codertocat\/Hello-World\/pull\/1\|Codertocat\/Hello-World#1 /)
    expect(dms(AUTHOR_DM)[0]!.metadata).toMatchObject({ event_type: 'prherald_direct_message' })
    // The same delivery again (a redelivery) and the author's own comment: nothing more.
    await send('pull_request_review', review('approved', 1, 'dave'), 'review-1')
    await send('issue_comment', conversationComment(1, 'Codertocat'))
    // The sender has had a round since both were applied.
    await nextRunOf(h.service!, DIRECT_MESSAGES)
    expect(dms(AUTHOR_DM)).toHaveLength(1)
    // dave did not opt in (notify.direct_messages: opt_in): the team request reaches erin only.
    expect(h.slack.calls.filter((c) => c.method === 'conversations.open').map((c) => c.body.users)).not.toContain(DAVE)
  })

  it('reaches a team\'s members who opted in when the team is asked to review', async () => {
    clock = BERLIN.wednesdayMorning
    await start()
    const opened = pullRequest('opened', 2)
    opened.pull_request.requested_teams = [{ name: 'Backend', slug: 'backend', id: 1 }]
    await send('pull_request', opened)
    await waitFor('erin\'s message', () => dms('D0ERIN').length === 1)
    expect(dms('D0ERIN')[0]!.text).toMatch(/^:eyes: Your team Backend is asked to review <https:/)
    expect(dms('D0DAVE')).toHaveLength(0)
  })

  it('never holds the channel message up for a people look-up: the sender resolves who is in the team', async () => {
    clock = BERLIN.wednesdayMorning
    // Slack answers the group's members only when the test lets it.
    let answerGroup!: () => void
    h.slack.faults.push({ method: 'usergroups.users.list', fault: { until: new Promise<void>((resolve) => { answerGroup = resolve }) } })
    await start()
    const opened = pullRequest('opened', 9)
    opened.pull_request.requested_teams = [{ name: 'Backend', slug: 'backend', id: 1 }]
    await send('pull_request', opened)
    await waitFor('the sender asking for the group\'s members', () => h.slack.count('usergroups.users.list') === 1)
    // The batch is done, its message posted, while the group's members are still being asked for.
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(dms('D0ERIN')).toHaveLength(0)
    answerGroup()
    await waitFor('erin\'s message', () => dms('D0ERIN').length === 1)
  })

  it('holds messages due on Friday night and sends them gathered at the start of Monday, after a restart, once', async () => {
    clock = BERLIN.fridayEvening
    await start()
    await send('pull_request', pullRequest('opened', 3))
    await send('pull_request_review', review('changes_requested', 3, 'dave'))
    await send('issue_comment', conversationComment(3, 'dave'))
    await nextRunOf(h.service!, DIRECT_MESSAGES)
    expect(dms(AUTHOR_DM)).toHaveLength(0)
    await h.service!.stop()

    clock = BERLIN.mondayStart + 60_000
    await start()
    await waitFor('the held messages', () => dms(AUTHOR_DM).length === 1)
    const text = dms(AUTHOR_DM)[0]!.text
    // Queued in the same millisecond of the fake clock: in either order.
    expect(text).toMatch(/^While you were away \(2 updates\):\n• /)
    expect(text).toMatch(/\n• :exclamation: dave asked for changes on </)
    expect(text).toMatch(/\n• :speech_balloon: dave commented on </)
    await h.service!.stop()
    await start()
    await nextRunOf(h.service!, DIRECT_MESSAGES)
    expect(dms(AUTHOR_DM)).toHaveLength(1)
  })

  it('looks for a message whose answer was lost before sending it again', async () => {
    clock = BERLIN.wednesdayMorning
    h.slack.faults.push({ method: 'chat.postMessage', channel: AUTHOR_DM, fault: { lostAnswer: 'hang' } })
    await start()
    await send('pull_request', pullRequest('opened', 4))
    const merged = pullRequest('closed', 4, { merged: true })
    merged.sender.login = 'dave'
    await send('pull_request', merged)
    await waitFor('the lookup', () => h.slack.count('conversations.history') > 0, 15_000)
    // The round that looked has ended, and the next one found nothing left to send.
    await nextRunOf(h.service!, DIRECT_MESSAGES)
    expect(h.service!.entries()).not.toContainEqual(expect.objectContaining({ msg: 'direct message not sent; it is tried again' }))
    expect(dms(AUTHOR_DM)).toHaveLength(1)
    expect(dms(AUTHOR_DM)[0]!.text).toMatch(/merged/)
    expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === AUTHOR_DM)).toHaveLength(1)
  })

  it('a direct message still on its way to Slack when the process stops is found at the restart, not sent twice', async () => {
    // Like the post's (test/faults/interrupted-delivery.test.ts): Slack carries the message out 3.5 s after it
    // arrives, inside the client's timeout, so it is neither answered nor in the conversation when the process
    // stops, and lands after the restart's first look.
    writeConfig(h.dir.path, {
      git_provider: 'github', server: { shutdown_timeout_seconds: 1 },
      users: { Codertocat: { slack: AUTHOR, direct_messages: 'on' } }, mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
    clock = BERLIN.wednesdayMorning
    h.slack.faults.push({ method: 'chat.postMessage', channel: AUTHOR_DM, fault: { delayMs: 3500 } })
    const startSlow = async () => {
      h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', { SLACK_API_URL: h.slack.url, ...h.database.env }), {
        clock: () => clock, directMessageIntervalMs: 50, slackTimeoutMs: 5000,
      })
    }
    await startSlow()
    await send('pull_request', pullRequest('opened', 5))
    await send('pull_request_review', review('approved', 5, 'dave'))
    await waitFor('the direct message on its way', () => h.slack.calls.some((c) => c.method === 'chat.postMessage' && c.body.channel === AUTHOR_DM))
    await h.service!.stop()
    h.service = undefined
    expect(dms(AUTHOR_DM)).toHaveLength(0)

    // Past the dead sender's claim on the person.
    clock += 61_000
    await startSlow()
    await waitFor('the restart\'s look-up', () => h.service!.entries().some((e) => e.msg === 'interrupted direct messages looked up'), 15_000)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'interrupted direct messages looked up', found: 1 }))
    // A sender's round after the look-up: the message found is not sent again.
    await nextRunOf(h.service!, DIRECT_MESSAGES)
    expect(dms(AUTHOR_DM)).toHaveLength(1)
    expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === AUTHOR_DM)).toHaveLength(1)
  })
})
