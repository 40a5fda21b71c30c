import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { ACCOUNTS, ALICE, BOB, CHANNEL, linkInSqlite, newTokenKey, talkBackEnv } from '../helpers/talk-back-setup.ts'
import { deleted, edited, eventBody, provider, REPLY_HOSTS, replyConfig, replyEvent, type ReplyHost, waitForThread } from '../helpers/thread-reply-events.ts'

/**
 * Issue 33.2: a reply in the thread of a pull request's message becomes a comment on the pull request, through
 * the real server: signed Slack events, a fake Slack, and each host's fake API recording the comments.
 */
describe.each(['github', 'gitlab', 'bitbucket'] as const)('thread replies on %s', (kind: ReplyHost) => {
  const h = REPLY_HOSTS[kind]
  let dir: ReturnType<typeof makeTempDir>
  let slack: FakeSlack
  let fake: FakeOAuthHost
  let service: TestService | undefined
  let key: string
  let ownToken: string
  let eventSeq = 0

  beforeEach(async () => {
    dir = makeTempDir()
    slack = await startFakeSlack({ anyChannel: true })
    // users.info names people for prherald's own comments, and tells guests apart (the users:read scope).
    slack.scopes.push('users:read', 'commands')
    slack.users.set(ALICE, { realName: 'Alice Liddell' })
    slack.users.set(BOB, { realName: 'Bob Jones' })
    fake = await startFakeOAuthHost(kind, { accounts: ACCOUNTS })
    key = newTokenKey()
    ownToken = fake.issue('prherald').accessToken
  })
  afterEach(async () => {
    await service?.stop()
    service = undefined
    await slack.close()
    await fake.close()
    dir.remove()
  })

  const start = async (mode: 'linked' | 'everyone', link = true, external?: 'off' | 'linked' | 'everyone', linkKey = key) => {
    const config = replyConfig(kind, mode)
    writeConfig(dir.path, external ? { ...config, slack: { talk_back: { ...config.slack.talk_back, external } } } : config)
    if (link) await linkInSqlite(dir.path, { fake, key: linkKey, accountKey: h.aliceKey })
    await restart()
    expect((await deliver(service!.url, provider(kind), h.delivery)).status).toBe(200)
    return waitForThread(slack, () => service!.entries())
  }
  const restart = async () => {
    service = await startPrherald(dir.path, testEnv(dir.path, provider(kind), {
      SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...talkBackEnv(fake, { key, ownToken }),
    }))
  }
  const send = async (event: unknown, eventId = `Ev${kind}${++eventSeq}`) => {
    const res = await sendSignedSlack(service!.url, '/webhook/slack/events', eventBody(eventId, event))
    expect(res.status).toBe(200)
    return eventId
  }
  const settle = async () => expect(await service!.settle(10_000)).toBe(true)
  const live = () => fake.comments.filter((c) => !c.deleted)
  const audits = () => service!.entries().filter((e) => e.msg === 'audit: talk-back action')

  it('a linked person\'s reply is one comment as them; an edit edits it, an unfurl changes nothing, a deletion deletes it', async () => {
    const thread = await start('linked')
    const reply = replyEvent(slack, thread, ALICE, `*Looks good*, see <https://example.com|the doc> and ask <@${ALICE}>`)
    const eventId = await send(reply.event)
    await waitFor('the comment', () => fake.comments.length === 1)
    await settle()
    const [comment] = fake.comments
    expect(comment).toMatchObject({ pr: `${h.repository}#${h.number}`, author: 'alice', deleted: false })
    expect(comment!.body).toContain(`**Looks good**, see [the doc](https://example.com) and ask ${h.aliceMention}`)
    expect(comment!.body).not.toContain('(from Slack)')
    expect([...slack.messages.get(reply.ts)!.reactions]).toEqual(['speech_balloon'])
    // The message says once, on itself, where replies go.
    expect(JSON.stringify(slack.messagesIn(CHANNEL)[0]!.blocks)).toContain('Replies in this thread go to the pull request')
    // Slack's retry of the same event, and the thread stays prherald's own: nothing is posted in it.
    await send(reply.event, eventId)
    await settle()
    expect(fake.comments).toHaveLength(1)
    expect(slack.repliesTo(CHANNEL, thread).filter((m) => m.ts !== reply.ts)).toEqual([])
    // The comment's own webhook only moves the message's comment count: nothing is posted back.
    const posts = slack.count('chat.postMessage')
    expect((await deliver(service!.url, provider(kind), h.commented)).status).toBe(200)
    await settle()
    expect(slack.messagesIn(CHANNEL)[0]!.text).toMatch(/ 1 comment$/)
    expect(slack.count('chat.postMessage')).toBe(posts)
    expect(slack.repliesTo(CHANNEL, thread).filter((m) => m.ts !== reply.ts)).toEqual([])

    await send(edited(reply, 'Looks *great*'))
    await settle()
    expect(live()).toHaveLength(1)
    expect(live()[0]!.body).toMatch(/^Looks \*\*great\*\*\n/)
    const editsBefore = fake.requests.filter((r) => r.method === 'PATCH' || r.method === 'PUT').length
    // An unfurl: Slack sends message_changed with the same text (attachments added).
    await send({ ...edited(reply, 'Looks *great*', 'Looks *great*'), attachments: [{ title: 'the doc' }] })
    await settle()
    expect(fake.requests.filter((r) => r.method === 'PATCH' || r.method === 'PUT')).toHaveLength(editsBefore)

    await send(deleted(reply))
    await settle()
    expect(fake.comments).toHaveLength(1)
    expect(live()).toEqual([])
    expect(audits().map((e) => [e.action, e.outcome, e.host_login])).toEqual([
      ['reply_post', 'commented', 'alice'], ['reply_edit', 'edited', 'alice'], ['reply_delete', 'deleted', 'alice'],
    ])
    expect(service!.logs.join('\n')).not.toContain(ownToken)
  })

  it('everyone: an unlinked person\'s reply is a comment by prherald\'s own account, naming them', async () => {
    const thread = await start('everyone', false)
    // The event's profile says "Alice": anyone can set that. The comment names Bob as his workspace knows him.
    await send(replyEvent(slack, thread, BOB, 'Can we split this?', { user_profile: { display_name: 'Alice', real_name: 'Alice' } }).event)
    await waitFor('the comment', () => fake.comments.length === 1)
    expect(fake.comments[0]).toMatchObject({ author: 'prherald', deleted: false })
    expect(fake.comments[0]!.body).toMatch(/^\*\*Bob Jones\*\* \(Slack user `U0BOB`\): Can we split this\?\n/)
    await settle()
    expect(slack.count('chat.postEphemeral')).toBe(0)
  })

  it('everyone: a typed @name in prherald\'s comment pings no one; a Slack mention users: maps does', async () => {
    const thread = await start('everyone', false)
    await send(replyEvent(slack, thread, BOB, `cc @octocat, @acme/security and <@${ALICE}>; mail bob@example.com`).event)
    await waitFor('the comment', () => fake.comments.length === 1)
    expect(fake.comments[0]!.body).toContain(`cc \`@octocat\`, \`@acme/security\` and ${h.aliceMention}; mail bob@example.com`)
  })

  it('guests and other workspaces: external linked keeps prherald\'s account from speaking for them; everyone lets it; off refuses even a linked one', async () => {
    slack.users.set(BOB, { realName: 'Bob Jones', guest: 'multi' })
    const thread = await start('everyone', true)
    // A guest, and someone from another workspace (Slack Connect: the event's user_team is not the workspace's).
    await send(replyEvent(slack, thread, BOB, 'from a guest').event)
    await send(replyEvent(slack, thread, 'U0CAROL', 'from a partner', { user_team: 'T0PARTNER' }).event)
    await waitFor('the notes', () => slack.count('chat.postEphemeral') === 2)
    await settle()
    expect(fake.comments).toEqual([])
    // A linked person from outside still comments as themselves.
    await send(replyEvent(slack, thread, ALICE, 'linked, from a partner', { user_team: 'T0PARTNER' }).event)
    await waitFor('the comment', () => fake.comments.length === 1)
    expect(fake.comments[0]).toMatchObject({ author: 'alice' })

    await service!.stop()
    writeConfig(dir.path, { ...replyConfig(kind, 'everyone'), slack: { talk_back: { thread_replies: 'everyone', external: 'everyone' } } })
    await restart()
    await send(replyEvent(slack, thread, BOB, 'from a guest, allowed').event)
    await waitFor('the guest\'s comment', () => fake.comments.length === 2)
    expect(fake.comments[1]).toMatchObject({ author: 'prherald' })
    expect(fake.comments[1]!.body).toMatch(/^\*\*Bob Jones\*\* \(Slack user `U0BOB`\): from a guest, allowed/)

    await service!.stop()
    writeConfig(dir.path, { ...replyConfig(kind, 'everyone'), slack: { talk_back: { thread_replies: 'everyone', external: 'off' } } })
    await restart()
    const notes = slack.count('chat.postEphemeral')
    await send(replyEvent(slack, thread, ALICE, 'linked, from a partner, refused', { user_team: 'T0PARTNER' }).event)
    await waitFor('the note', () => slack.count('chat.postEphemeral') === notes + 1)
    await settle()
    expect(fake.comments).toHaveLength(2)
    expect(audits().map((e) => e.outcome)).toContain('external_off')
  })

  it('a link the token key cannot open is taken as not linked: the reply goes on, the pull request is not held up', async () => {
    // Alice linked under a key the server no longer has (PRHERALD_TOKEN_KEY changed without _PREVIOUS).
    const thread = await start('everyone', true, undefined, newTokenKey())
    expect(service!.entries().find((e) => e.msg === '1 linked account cannot be opened with the configured token keys; those people are taken as not linked')).toMatchObject({ links: 1 })
    await send(replyEvent(slack, thread, ALICE, 'first').event)
    await send(replyEvent(slack, thread, ALICE, 'second').event)
    await waitFor('the comments', () => fake.comments.length === 2)
    expect(fake.comments.map((c) => c.author)).toEqual(['prherald', 'prherald'])
    expect(fake.comments[0]!.body).toMatch(/^\*\*Alice Liddell\*\* \(Slack user `U0ALICE`\): first/)
    // Told once, not at each reply.
    await settle()
    expect(slack.calls.filter((c) => c.method === 'chat.postEphemeral' && String(c.body.text).includes('cannot be used'))).toHaveLength(1)
    // The pull request's next delivery updates its message: nothing is parked or retried for the link.
    if (kind === 'github') {
      const updates = slack.messagesIn(CHANNEL)[0]!.updates
      expect((await deliver(service!.url, provider(kind), { event: 'pull_request', payload: pullRequest('closed', h.number) })).status).toBe(200)
      await settle()
      expect(slack.messagesIn(CHANNEL)[0]!.updates).toBeGreaterThan(updates)
    }
    expect(service!.entries().filter((e) => e.msg === 'delivery failed; it stays pending')).toEqual([])
  })

  it('linked: an unlinked person\'s reply makes no comment; they are told privately how to link', async () => {
    const thread = await start('linked')
    await send(replyEvent(slack, thread, BOB, 'Can we split this?').event)
    await waitFor('the note', () => slack.count('chat.postEphemeral') === 1)
    await settle()
    expect(fake.comments).toEqual([])
    const note = slack.calls.find((c) => c.method === 'chat.postEphemeral')!.body
    expect(note).toMatchObject({ channel: CHANNEL, user: BOB })
    expect(String(note.text)).toContain(`/prherald link ${kind}`)
  })

  it('bots, prherald\'s own messages, other threads and channel messages make nothing', async () => {
    const thread = await start('everyone')
    const bot = replyEvent(slack, thread, ALICE, 'deployed', { bot_id: 'B0OTHER' })
    await send(bot.event)
    await send(replyEvent(slack, '1700000000.000001', ALICE, 'another thread').event)
    await send({ ...replyEvent(slack, thread, ALICE, 'to the channel').event, thread_ts: undefined })
    await send({ type: 'message', subtype: 'message_changed', channel: CHANNEL, message: { ts: thread, text: 'x', bot_id: 'B123', thread_ts: thread }, previous_message: { ts: thread, text: 'y' } })
    await send({ type: 'message', subtype: 'channel_join', channel: CHANNEL, user: ALICE, ts: '1800001000.000001', thread_ts: thread })
    // Slackbot's messages and prherald's own bot user's (no bot_id on either) are no one's replies.
    await send(replyEvent(slack, thread, 'USLACKBOT', 'Reminder: review this').event)
    await send(replyEvent(slack, thread, 'U0BOT', 'posted as the bot user').event)
    await send({ type: 'message', subtype: 'message_deleted', channel: CHANNEL, deleted_ts: thread, previous_message: { ts: thread, text: 'x', bot_id: 'B123' } }, 'Ev-own')
    await settle()
    expect(fake.comments).toEqual([])
    expect(slack.count('chat.postEphemeral')).toBe(0)
    // prherald's own event was dropped before any write: its event_id was never taken, so a reply with it is acted on.
    await send(replyEvent(slack, thread, ALICE, 'a real reply').event, 'Ev-own')
    await waitFor('the comment', () => fake.comments.length === 1)
  })

  it('20 replies a minute per person; the 21st is refused politely', async () => {
    const thread = await start('linked')
    for (let i = 0; i < 21; i++) await send(replyEvent(slack, thread, ALICE, `reply ${i}`).event)
    await waitFor('the note', () => slack.count('chat.postEphemeral') === 1)
    await settle()
    expect(fake.comments).toHaveLength(20)
    expect(String(slack.calls.find((c) => c.method === 'chat.postEphemeral')!.body.text)).toContain('more than 20 replies in a minute')
  })

  it('a host that refuses the comment: the person gets the host\'s words privately', async () => {
    const thread = await start('linked')
    fake.refuseComments = 'Conversation is locked'
    const reply = replyEvent(slack, thread, ALICE, 'one more thing')
    await send(reply.event)
    await waitFor('the note', () => slack.count('chat.postEphemeral') === 1)
    await settle()
    expect(fake.comments).toEqual([])
    expect(String(slack.calls.find((c) => c.method === 'chat.postEphemeral')!.body.text)).toContain('Conversation is locked')
    expect(slack.messages.get(reply.ts)!.reactions.size).toBe(0)
    expect(audits().map((e) => e.outcome)).toEqual(['refused'])
  })

  it('a crash between the host\'s call and the comment\'s id: the restart adopts the comment instead of making a second', async () => {
    const thread = await start('linked')
    // The comment is made and its answer lost; the look-up that follows cannot list the comments either.
    fake.loseCommentAnswers = 1
    fake.failCommentLists = 1_000
    const reply = replyEvent(slack, thread, ALICE, 'made once')
    await send(reply.event)
    await waitFor('the comment and a failed look-up', () => fake.comments.length === 1 && fake.failCommentLists < 1_000)
    await service!.stop()
    service = undefined

    fake.failCommentLists = 0
    await restart()
    await settle()
    expect(fake.comments).toHaveLength(1)
    expect(fake.comments[0]).toMatchObject({ author: 'alice', deleted: false })
    expect(service!.entries().find((e) => e.msg === 'interrupted pull request comments looked up')).toMatchObject({ count: 1, found: 1 })
    expect([...slack.messages.get(reply.ts)!.reactions]).toEqual(['speech_balloon'])
    // The adopted comment is the reply's: its edit reaches it.
    await send(edited(reply, 'made once, edited'))
    await settle()
    expect(fake.comments[0]!.body).toMatch(/^made once, edited\n/)
  })
})
