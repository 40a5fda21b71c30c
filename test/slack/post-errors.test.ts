import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createSlackClient, type SlackClient } from '../../src/slack/slack-client.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'

/**
 * A failed chat.postMessage goes through the same classify-and-observe path as every other call: a 429 is
 * slack_rate_limited (the pacer holds the channel and tries again; nothing was posted), a refused token is
 * slack_auth and reported to the token observer, and only a failure after which the post may be in the
 * channel is slack_outcome_unknown. Real calls from prherald's own client to the fake Slack.
 */
let slack: FakeSlack
let client: SlackClient
let observed: string[]
beforeEach(async () => {
  slack = await startFakeSlack({ anyChannel: true })
  observed = []
  client = createSlackClient({
    token: TEST_SLACK_TOKEN, apiUrl: slack.url, logger: createLogger({ format: 'json', level: 'error', write: () => {} }),
    tokenObserver: { refused: (slackError) => observed.push(`refused ${slackError}`), accepted: () => observed.push('accepted') },
  })
})
afterEach(async () => slack.close())

async function postError(): Promise<unknown> {
  try {
    await client.postMessage('C0000000001', { text: 'x', blocks: [] })
  } catch (error) {
    return error
  }
  throw new Error('the post did not fail')
}

describe('a failed post', () => {
  it('a 429 is slack_rate_limited with Retry-After, answered at once, not an unknown outcome', async () => {
    slack.faults.push({ method: 'chat.postMessage', fault: { status: 429, headers: { 'retry-after': '7' } } })
    const error = await postError()
    expect(isPrheraldError(error, 'slack_rate_limited')).toBe(true)
    expect((error as { retryAfterMs?: number }).retryAfterMs).toBe(7000)
    expect(slack.messages.size).toBe(0)
  })

  it('a refused token is slack_auth, and the token observer hears of it', async () => {
    slack.faults.push({ method: 'chat.postMessage', fault: { error: 'token_revoked' } })
    expect(isPrheraldError(await postError(), 'slack_auth')).toBe(true)
    expect(observed).toEqual(['refused token_revoked'])
  })

  it('a channel refusal is slack_permanent and still shows the token works', async () => {
    slack.faults.push({ method: 'chat.postMessage', fault: { error: 'not_in_channel' } })
    expect(isPrheraldError(await postError(), 'slack_permanent')).toBe(true)
    expect(observed).toEqual(['accepted'])
  })

  it('a 503 is an unknown outcome; a post that succeeds tells the observer the token works', async () => {
    slack.faults.push({ method: 'chat.postMessage', fault: { status: 503 } })
    expect(isPrheraldError(await postError(), 'slack_outcome_unknown')).toBe(true)
    expect(await client.postMessage('C0000000001', { text: 'y', blocks: [] })).toMatch(/^\d+\.\d{6}$/)
    expect(observed).toEqual(['accepted'])
  })
})
