import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ShutdownInterrupt } from '../../src/slack/retry-transient.ts'
import { createLogger } from '../../src/log/logger.ts'
import { slackCallOutcome } from '../../src/metrics/slack-call-outcome.ts'
import { createSlackClient, type SlackClient } from '../../src/slack/slack-client.ts'
import { startFakeSlack, type FakeSlack, type SlackFault } from '../helpers/fake-slack.ts'
import { TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'

/**
 * The outcome label of `prherald_slack_calls_total`, from the errors prherald's own Slack client throws for
 * real answers of the fake Slack: each fault lands in its class, and nothing else is ever a label value.
 */
let slack: FakeSlack
let release: () => void
/** Held by the fake Slack until the test ends: a call that never gets its answer. */
let never: Promise<void>
beforeEach(async () => {
  slack = await startFakeSlack({ anyChannel: true })
  never = new Promise((resolve) => { release = resolve })
})
afterEach(async () => {
  release()
  await slack.close()
})

/** A client of its own per case: a long timeout where an answer is expected (however loaded the machine), a short one where none comes. */
const clientWith = (timeoutMs: number): SlackClient => createSlackClient({
  token: TEST_SLACK_TOKEN, apiUrl: slack.url, logger: createLogger({ format: 'json', level: 'error', write: () => {} }),
  retry: { retries: 0 }, timeoutMs,
})

async function outcomeOf(method: 'chat.update' | 'chat.postMessage', fault: SlackFault | undefined, timeoutMs: number): Promise<string> {
  if (fault) slack.faults.push({ method, fault })
  const client = clientWith(timeoutMs)
  try {
    if (method === 'chat.update') await client.updateMessage('C0000000001', '1700000000.000100', { text: 'x', blocks: [] })
    else await client.postMessage('C0000000001', { text: 'x', blocks: [] })
    return slackCallOutcome()
  } catch (error) {
    return slackCallOutcome(error)
  }
}

describe('slackCallOutcome', () => {
  it.each<[string, 'chat.update' | 'chat.postMessage', SlackFault | 'held' | undefined, string]>([
    ['a post that went through', 'chat.postMessage', undefined, 'ok'],
    ['HTTP 429', 'chat.update', { status: 429, headers: { 'retry-after': '3' } }, 'rate_limited'],
    ['HTTP 429 on a post', 'chat.postMessage', { status: 429, headers: { 'retry-after': '3' } }, 'rate_limited'],
    ['no answer within the client timeout', 'chat.update', 'held', 'timeout'],
    ['a post without an answer in time', 'chat.postMessage', 'held', 'timeout'],
    ['HTTP 503', 'chat.update', { status: 503 }, 'transient'],
    ['a reset post (it may be in the channel)', 'chat.postMessage', { reset: true }, 'outcome_unknown'],
    ['channel_not_found', 'chat.update', { error: 'channel_not_found' }, 'refused'],
    ['token_revoked', 'chat.update', { error: 'token_revoked' }, 'auth'],
    ['message_not_found', 'chat.update', { error: 'message_not_found' }, 'not_found'],
  ])('%s is %s', async (_name, method, fault, expected) => {
    const outcome = fault === 'held' ? await outcomeOf(method, { until: never }, 200) : await outcomeOf(method, fault, 30_000)
    expect(outcome).toBe(expected)
  })

  it('a call cut by shutdown is interrupted, anything unclassified is error', () => {
    expect(slackCallOutcome(new ShutdownInterrupt('shutting down'))).toBe('interrupted')
    expect(slackCallOutcome(new TypeError('boom'))).toBe('error')
  })
})
