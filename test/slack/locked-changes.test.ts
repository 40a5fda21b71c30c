import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createSlackClient, type SlackClient } from '../../src/slack/slack-client.ts'
import { createSlackPacer } from '../../src/slack/slack-pacer.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'

/**
 * The chaos run on PostgreSQL (issue 23.9): a replica's chat.update hung, the database restarted and took
 * the replica's pull-request lock with it, another replica updated the message to its final state, and then
 * the first replica's Slack client retried its timed-out update on its own, without asking whether the lock
 * still held: the message went back to an older state. A change made under a lock is sent once; the batch
 * retries it through the pacer, which checks the lock first.
 */
const CHANNEL = 'C0000000001'
let slack: FakeSlack
let client: SlackClient
const controller = new AbortController()
const pacer = createSlackPacer({ pacing: 'off', parallel: 4, signal: controller.signal })
beforeEach(async () => {
  slack = await startFakeSlack()
  client = createSlackClient({
    token: 'xoxb-test', apiUrl: slack.url, timeoutMs: 300,
    retry: { retries: 3, minTimeout: 10, maxTimeout: 20, factor: 1 },
    logger: createLogger({ format: 'json', level: 'error', write: () => {} }),
  })
})
afterEach(() => slack.close())

const update = (text: string, lost?: AbortSignal) => pacer.call('chat.update', CHANNEL, () => client.updateMessage(CHANNEL, ts, { text, blocks: [] }), lost)
let ts = ''

it('an update that times out under a lock is not sent again by the client: the lock may be gone by then', async () => {
  ts = await client.postMessage(CHANNEL, { text: 'opened', blocks: [] })
  slack.faults.push({ method: 'chat.update', fault: { lostAnswer: 'hang' } })
  const lock = new AbortController()
  const stale = update('approved', lock.signal).catch((error: unknown) => error)
  // The lock goes while the update waits for its answer; the replica now holding the pull request writes the end.
  await vi.waitFor(() => expect(slack.count('chat.update'), 'the update on its way').toBe(1))
  lock.abort(new Error('terminating connection due to administrator command'))
  await update('merged')
  expect(isPrheraldError(await stale, 'slack_transient')).toBe(true)
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(slack.count('chat.update')).toBe(2)
  expect(slack.messages.get(ts)?.text).toBe('merged')
})

it('outside a batch the client sends a change once as well: whoever calls (the server, a local reconcile) behaves the same', async () => {
  ts = await client.postMessage(CHANNEL, { text: 'opened', blocks: [] })
  slack.faults.push({ method: 'chat.update', fault: { lostAnswer: 'hang' } })
  expect(isPrheraldError(await update('merged').catch((error: unknown) => error), 'slack_transient')).toBe(true)
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(slack.count('chat.update')).toBe(1)
})

it('a call for a batch whose lock is already gone is refused before it is sent', async () => {
  ts = await client.postMessage(CHANNEL, { text: 'opened', blocks: [] })
  const lock = new AbortController()
  lock.abort(new Error('connection reset'))
  expect(isPrheraldError(await update('late', lock.signal).catch((error: unknown) => error), 'database')).toBe(true)
  expect(slack.count('chat.update')).toBe(0)
})
