import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { sendSignedSlack } from '../helpers/slack-requests.ts'
import { killServer, runCli, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { ACCOUNTS, ALICE, linkInSqlite, newTokenKey, talkBackEnv } from '../helpers/talk-back-setup.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { deleted, eventBody, REPLY_HOSTS, replyConfig, replyEvent, waitForThread } from '../helpers/thread-reply-events.ts'

/**
 * Issue 33.2: SIGKILL between the host's create of a thread reply's comment and its id being stored, and the
 * reply deleted before the restart. The start-up recovery adopts the comment by its marker; the deletion,
 * whether it was recorded before the kill or arrives (Slack's retry) after the restart, deletes that comment.
 */
const h = REPLY_HOSTS.github
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let fake: FakeOAuthHost
let server: SpawnedServer | undefined
let key: string
let events = 0

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  fake = await startFakeOAuthHost('github', { accounts: ACCOUNTS })
  key = newTokenKey()
  await linkInSqlite(dir.path, { fake, key, accountKey: h.aliceKey })
})
afterEach(async () => {
  await killServer(server)
  server = undefined
  await slack.close()
  await fake.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...talkBackEnv(fake, { key }) })
const spawn = async () => { server = await spawnServer(env()) }
const send = async (event: unknown) => {
  const res = await sendSignedSlack(server!.url, '/webhook/slack/events', eventBody(`EvCrash${++events}`, event))
  expect(res.status).toBe(200)
}
async function kill(): Promise<void> {
  server!.child.kill('SIGKILL')
  expect(await server!.exited).toEqual({ code: null, signal: 'SIGKILL' })
}

/** The message, then a reply whose comment is made at the host with its answer lost, and no look-up that works. */
async function replyWithLostAnswer(config: Record<string, unknown> = {}) {
  writeConfig(dir.path, { ...replyConfig('github', 'linked'), server: { log_format: 'json' }, ...config })
  await spawn()
  expect((await deliver(server!.url, 'github', h.delivery)).status).toBe(200)
  const thread = await waitForThread(slack, () => server!.entries())
  fake.loseCommentAnswers = 1
  fake.failCommentLists = 1_000_000
  const reply = replyEvent(slack, thread, ALICE, 'soon deleted')
  await send(reply.event)
  await waitFor('the comment and a failed look-up', () => fake.comments.length === 1 && fake.failCommentLists < 1_000_000, 20_000)
  return reply
}

/** The host lists comments again; the restart's recovery finds the comment and the replay leaves nothing pending. */
async function restartFindingTheComment() {
  fake.failCommentLists = 0
  await spawn()
  await waitFor('nothing pending', () => pendingDeliveries(dir.path) === 0, 20_000)
  expect(recovered()).toMatchObject({ count: 1, found: 1 })
}

const recovered = () => server!.entries().find((e) => e.msg === 'interrupted pull request comments looked up')

it('the deletion recorded before the kill: the restart adopts the comment, then deletes it', async () => {
  const reply = await replyWithLostAnswer()
  await send(deleted(reply))
  await kill()
  expect(pendingDeliveries(dir.path)).toBe(2)

  await restartFindingTheComment()
  expect(fake.comments).toEqual([expect.objectContaining({ author: 'alice', deleted: true })])
})

it('the deletion arriving after the restart (Slack\'s retry): it deletes the comment the recovery adopted', async () => {
  const reply = await replyWithLostAnswer()
  await kill()
  expect(pendingDeliveries(dir.path)).toBe(1)

  await restartFindingTheComment()
  expect(fake.comments).toEqual([expect.objectContaining({ deleted: false })])
  await send(deleted(reply))
  await waitFor('the comment deleted', () => fake.comments[0]!.deleted, 20_000)
  expect(fake.comments).toHaveLength(1)
})

it('the deletion applied while the reply\'s post is parked: it looks for the comment, and the restart deletes the one it finds', async () => {
  // One failed batch parks the pull request's deliveries: the deletion then comes in a batch of its own.
  const reply = await replyWithLostAnswer({ database: { retry_attempts: 1 } })
  const parked = () => server!.entries().filter((e) => String(e.msg).startsWith('deliveries parked')).length
  await waitFor('the post parked', () => parked() === 1, 20_000)
  await send(deleted(reply))
  // The deletion's own look-up for the comment fails too (the host still cannot list comments): parked as well.
  await waitFor('the deletion parked', () => parked() === 2, 20_000)
  await kill()

  fake.failCommentLists = 0
  await spawn()
  await waitFor('the recovery', () => recovered() !== undefined, 20_000)
  expect(recovered()).toMatchObject({ count: 1, found: 1 })
  expect(fake.comments).toEqual([expect.objectContaining({ author: 'alice', deleted: true })])
  // The parked post and deletion replayed: no comment is made again, none is left.
  const replayed = runCli('migrate', ['replay-parked'], env())
  expect(replayed.status).toBe(0)
  await waitFor('nothing pending', () => pendingDeliveries(dir.path) === 0, 20_000)
  expect(fake.comments).toEqual([expect.objectContaining({ deleted: true })])
})

it('the deletion applied alone once the host answers again: the comment found by its marker is deleted, and the restart adopts nothing', async () => {
  const reply = await replyWithLostAnswer({ database: { retry_attempts: 1 } })
  await waitFor('the post parked', () => server!.entries().some((e) => String(e.msg).startsWith('deliveries parked')), 20_000)
  fake.failCommentLists = 0
  await send(deleted(reply))
  // Its audit line comes once the comment's id is stored (the host's delete comes a step before that).
  await waitFor('the deletion done', () => server!.entries().some((e) => e.msg === 'audit: talk-back action' && e.outcome === 'deleted_adopted'), 20_000)
  expect(fake.comments[0]!.deleted).toBe(true)
  await kill()

  await spawn()
  await waitFor('listening', () => server!.entries().some((e) => e.msg === 'listening'))
  expect(recovered()).toBeUndefined()
  expect(runCli('migrate', ['replay-parked'], env()).status).toBe(0)
  await waitFor('nothing pending', () => pendingDeliveries(dir.path) === 0, 20_000)
  expect(fake.comments).toEqual([expect.objectContaining({ author: 'alice', deleted: true })])
  expect(slack.messages.get(reply.ts)!.reactions.size).toBe(0)
})
