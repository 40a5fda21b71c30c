import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { ACCOUNTS, ALICE, CHANNEL, linkInSqlite, newTokenKey, talkBackEnv } from '../helpers/talk-back-setup.ts'
import { eventBody, REPLY_HOSTS, replyConfig, replyEvent } from '../helpers/thread-reply-events.ts'

/**
 * Slack shows a message before its answer brings prherald the ts: a reply that arrives in between (a loaded
 * PostgreSQL, a slow commit) was taken as another thread's, its event_id spent, and the reply lost. It is now
 * answered 503, so Slack sends it again, and the retry becomes the comment. Found as a flake of
 * test/replicas/thread-reply-replicas.test.ts under load.
 */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let fake: FakeOAuthHost
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  fake = await startFakeOAuthHost('github', { accounts: ACCOUNTS })
})
afterEach(async () => {
  await service?.stop()
  await slack.close()
  await fake.close()
  dir.remove()
})

/** prherald with thread replies on (`linked`), Alice linked when `link`. */
async function start(link: boolean): Promise<TestService> {
  const key = newTokenKey()
  writeConfig(dir.path, replyConfig('github', 'linked'))
  if (link) await linkInSqlite(dir.path, { fake, key, accountKey: REPLY_HOSTS.github.aliceKey })
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', {
    SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...talkBackEnv(fake, { key }),
  }))
  return service
}

it('a reply sent while the message\'s post awaits its answer is asked again, and its retry is one comment', async () => {
  const prherald = await start(true)
  let answer!: () => void
  slack.faults.push({ method: 'chat.postMessage', fault: { answerAfter: new Promise<void>((resolve) => (answer = resolve)) } })
  expect((await deliver(prherald.url, 'github', REPLY_HOSTS.github.delivery)).status).toBe(200)
  await waitFor('the message, shown before its answer', () => slack.messagesIn(CHANNEL).length === 1)

  const body = eventBody('Ev-early', replyEvent(slack, slack.messagesIn(CHANNEL)[0]!.ts, ALICE, 'quick, before the ts').event)
  const early = await sendSignedSlack(prherald.url, '/webhook/slack/events', body)
  expect(early.status).toBe(503)
  expect(await early.json()).toMatchObject({ error: 'slack_message_pending' })
  expect(prherald.entries().filter((e) => e.level === 'error')).toEqual([])

  answer()
  await waitFor('the post completed', () => prherald.entries().some((e) => e.msg === 'slack message changed'))
  expect((await sendSignedSlack(prherald.url, '/webhook/slack/events', body, { headers: { 'x-slack-retry-num': '1' } })).status).toBe(200)
  await waitFor('the comment', () => fake.comments.length === 1)
  expect(fake.comments[0]).toMatchObject({ author: 'alice', body: expect.stringContaining('quick, before the ts') })
})

it('a reply in another thread of a channel with no post in flight is still ignored with a 200', async () => {
  const prherald = await start(false)
  expect((await deliver(prherald.url, 'github', REPLY_HOSTS.github.delivery)).status).toBe(200)
  await waitFor('the message', () => slack.messagesIn(CHANNEL).length === 1)
  await waitFor('the post completed', () => prherald.entries().some((e) => e.msg === 'slack message changed'))
  const body = eventBody('Ev-other', replyEvent(slack, '1700000000.000100', ALICE, 'in someone else\'s thread').event)
  expect((await sendSignedSlack(prherald.url, '/webhook/slack/events', body)).status).toBe(200)
  expect(await prherald.settle(10_000)).toBe(true)
  expect(fake.comments).toEqual([])
})
