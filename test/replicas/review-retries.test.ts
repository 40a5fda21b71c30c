import { afterEach, beforeEach, expect, it, onTestFinished } from 'vitest'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { linkAccount, reviewActionPayload, talkBackEnv, viewSubmissionPayload } from '../helpers/review-modal.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { sendInteraction, TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 33, "Done when": review from Slack on PostgreSQL with two replicas (real prherald-server processes).
 * The click reaches one replica, the submission another; Slack's retry of the submission, and the same form
 * submitted again, reach either: one review at the host. Its webhook then moves the message.
 */
const ALICE = 'U0000ALICE'
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let database: TestDatabase
let slack: FakeSlack
let fake: FakeOAuthHost
const replicas: SpawnedServer[] = []

beforeEach(async () => {
  dir = makeTempDir()
  database = await createTestDatabase()
  slack = await startFakeSlack({ anyChannel: true })
  fake = await startFakeOAuthHost('github')
  writeConfig(dir.path, {
    git_provider: 'github', server: { log_format: 'json' }, slack: { talk_back: { reviews: 'on' } },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  })
})
afterEach(async () => {
  await Promise.all(replicas.splice(0).map((r) => killServer(r)))
  await slack.close()
  await fake.close()
  await database.drop()
  dir.remove()
})

it('a submission retried to the other replica, and the same form submitted there again, make one review', async () => {
  const env = testEnv(dir.path, 'github', {
    SLACK_API_URL: slack.url, PRHERALD_DATABASE_URL: database.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...talkBackEnv(fake),
  })
  replicas.push(await spawnServer(env), await spawnServer(env))
  const [a, b] = replicas as [SpawnedServer, SpawnedServer]
  const store = createPostgresStore({ pool: await openPostgresPool({ url: database.url, onIdleError: () => {} }) })
  onTestFinished(() => store.close())
  await linkAccount(store, env, fake, ALICE, 'alice')
  expect((await deliver(a.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 9) })).status).toBe(200)
  await waitFor('the message', () => slack.messages.size === 1)
  const message = [...slack.messages.values()][0]!
  // The batch that posted it is committed (the row open), as it is long before anyone can click.
  await waitFor('the stored message', async () => (await store.findMessages({ provider: 'github', repository: 'Codertocat/Hello-World', prNumber: 9 }))[0]?.state === 'open')

  expect((await sendInteraction(a.url, reviewActionPayload({ user: ALICE, channel: message.channel, messageTs: message.ts, action: 'approve' }))).status).toBe(200)
  // Under load the look-ups may pass 1.5 s: the modal then opens as "Loading…" and becomes the form.
  await waitFor('the form', () => slack.modals.get('VMODAL1')?.view.callback_id === 'prherald_review_form')
  const view = slack.modals.get('VMODAL1')!.view
  const submission = viewSubmissionPayload({ user: ALICE, viewId: 'VMODAL1', view, text: 'LGTM' })
  const first = await sendInteraction(b.url, submission)
  expect((await first.json() as { response_action: string }).response_action).toBe('update')
  const retried = await sendInteraction(a.url, submission)
  expect(retried.status).toBe(200)
  expect(await retried.text()).toBe('')
  const again = await (await sendInteraction(a.url, viewSubmissionPayload({ user: ALICE, viewId: 'VMODAL1', view, text: 'LGTM' }))).json() as { view: { blocks: unknown[] } }
  expect(JSON.stringify(again.view.blocks)).toContain('already submitted')
  await waitFor('the outcome', () => JSON.stringify(slack.modals.get('VMODAL1')!.view.blocks).includes('Approved on'))
  expect(fake.reviews).toEqual([expect.objectContaining({ kind: 'approve', author: 'alice', body: 'LGTM' })])

  const updates = slack.count('chat.update')
  expect((await deliver(b.url, 'github', { event: 'pull_request_review', payload: review('approved', 9, 'alice') })).status).toBe(200)
  await waitFor('the approval on the message', () => slack.count('chat.update') > updates && JSON.stringify([...slack.messages.values()][0]!.blocks).includes('Approved by alice'))
})
