import { afterEach, beforeEach, expect, it } from 'vitest'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { sendSignedSlack } from '../helpers/slack-requests.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { ACCOUNTS, ALICE, CHANNEL, eventBody, linkAlice, newTokenKey, REPLY_HOSTS, replyConfig, replyEnv, replyEvent } from '../helpers/thread-reply-setup.ts'

/**
 * Issue 33's done-when: two real prherald-server processes on one PostgreSQL database. A thread reply that
 * Slack delivers to one replica and retries to the other (same event_id) becomes one comment.
 */
let dir: ReturnType<typeof makeTempDir>
let database: TestDatabase
let slack: FakeSlack
let fake: FakeOAuthHost
const replicas: SpawnedServer[] = []

beforeEach(async () => {
  dir = makeTempDir()
  database = await createTestDatabase()
  slack = await startFakeSlack({ anyChannel: true })
  fake = await startFakeOAuthHost('github', { accounts: ACCOUNTS })
})
afterEach(async () => {
  await Promise.all(replicas.splice(0).map((r) => killServer(r)))
  await slack.close()
  await fake.close()
  await database.drop()
  dir.remove()
})

it('the same reply delivered to both replicas, at once and again, is one comment', async () => {
  const key = newTokenKey()
  writeConfig(dir.path, { ...replyConfig('github', 'linked'), server: { log_format: 'json' } })
  const pool = await openPostgresPool({ url: database.url, onIdleError: () => {} })
  await postgresMigrateUp(pool)
  const store = createPostgresStore({ pool, now: Date.now })
  await linkAlice('github', store, fake, key)
  await store.close()

  const env = testEnv(dir.path, 'github', {
    SLACK_API_URL: slack.url, PRHERALD_DATABASE_URL: database.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
    ...replyEnv('github', fake, key, fake.issue('prherald').accessToken),
  }) as Record<string, string>
  // Linked mode needs no token of prherald's own, and without one start-up validation reads nothing at the fake.
  delete env.GITHUB_TOKEN
  replicas.push(await spawnServer(env), await spawnServer(env))
  const [a, b] = replicas as [SpawnedServer, SpawnedServer]
  expect((await deliver(a.url, 'github', REPLY_HOSTS.github.delivery)).status).toBe(200)
  await waitFor('the message', () => slack.messagesIn(CHANNEL).length === 1)
  const thread = slack.messagesIn(CHANNEL)[0]!.ts

  const body = eventBody('Ev-both', replyEvent(slack, thread, ALICE, 'once, on either replica').event)
  const statuses = await Promise.all([a, b].map(async (r) => (await sendSignedSlack(r.url, '/webhook/slack/events', body)).status))
  expect(statuses).toEqual([200, 200])
  await waitFor('the comment', () => fake.comments.length === 1)
  expect((await sendSignedSlack(b.url, '/webhook/slack/events', body, { headers: { 'x-slack-retry-num': '1' } })).status).toBe(200)
  expect((await sendSignedSlack(a.url, '/webhook/slack/events', body, { headers: { 'x-slack-retry-num': '2' } })).status).toBe(200)
  // Whatever a second comment would have needed has had time to happen.
  await new Promise((r) => setTimeout(r, 1000))
  expect(fake.comments).toHaveLength(1)
  expect(fake.comments[0]).toMatchObject({ author: 'alice', body: expect.stringContaining('once, on either replica') })
  const taken = [a, b].flatMap((r) => r.entries()).filter((e) => e.msg === 'ignored slack event' && e.reason === 'already_taken')
  expect(taken).toHaveLength(3)
})
