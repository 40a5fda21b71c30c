import { expect, it } from 'vitest'
import { useReplicaSet } from '../helpers/replica-set.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { sendSignedSlack } from '../helpers/slack-requests.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { ACCOUNTS, ALICE, linkInPostgres, newTokenKey, talkBackEnv } from '../helpers/talk-back-setup.ts'
import { eventBody, REPLY_HOSTS, replyConfig, replyEvent, waitForThread } from '../helpers/thread-reply-events.ts'

/**
 * Issue 33's done-when: two real prherald-server processes on one PostgreSQL database. A thread reply that
 * Slack delivers to one replica and retries to the other (same event_id) becomes one comment.
 */
const set = useReplicaSet({ backend: 'postgres', oauth: { kind: 'github', accounts: ACCOUNTS } })

it('the same reply delivered to both replicas, at once and again, is one comment', async () => {
  const { dir, slack, database, fake } = set()
  const key = newTokenKey()
  writeConfig(dir.path, { ...replyConfig('github', 'linked'), server: { log_format: 'json' } })
  await linkInPostgres(database.url, { fake, key, accountKey: REPLY_HOSTS.github.aliceKey })

  // Linked mode needs no token of prherald's own, and without one start-up validation reads nothing at the fake.
  const env = set().env('github', talkBackEnv(fake, { key }))
  const [a, b] = [await set().spawn(env), await set().spawn(env)]
  expect((await deliver(a.url, 'github', REPLY_HOSTS.github.delivery)).status).toBe(200)
  const thread = await waitForThread(slack, a.entries)

  const body = eventBody('Ev-both', replyEvent(slack, thread, ALICE, 'once, on either replica').event)
  const statuses = await Promise.all([a, b].map(async (r) => (await sendSignedSlack(r.url, '/webhook/slack/events', body)).status))
  expect(statuses).toEqual([200, 200])
  await waitFor('the comment', () => fake.comments.length === 1)
  expect((await sendSignedSlack(b.url, '/webhook/slack/events', body, { headers: { 'x-slack-retry-num': '1' } })).status).toBe(200)
  expect((await sendSignedSlack(a.url, '/webhook/slack/events', body, { headers: { 'x-slack-retry-num': '2' } })).status).toBe(200)
  // Each of the three copies that lost has been looked at and let go (the attempt), then: still one comment.
  const taken = () => [a, b].flatMap((r) => r.entries()).filter((e) => e.msg === 'ignored slack event' && e.reason === 'already_taken')
  await waitFor('the three other copies let go', () => taken().length >= 3)
  expect(taken()).toHaveLength(3)
  expect(fake.comments).toHaveLength(1)
  expect(fake.comments[0]).toMatchObject({ author: 'alice', body: expect.stringContaining('once, on either replica') })
})
