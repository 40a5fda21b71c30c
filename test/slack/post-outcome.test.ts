import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebClient } from '@slack/web-api'
import { mayHavePosted } from '../../src/slack/post-outcome.ts'
import { createSlackFetch } from '../../src/slack/slack-fetch.ts'
import { startFakeSlack, type FakeSlack, type SlackFault } from '../helpers/fake-slack.ts'
import { TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'

/**
 * Which failed posts may be in the channel anyway. The errors are the Web API client's own, from real calls
 * to the fake Slack (or to a closed port), configured as prherald's post client is: no retries, and its
 * `fetch` over node:http (src/slack/slack-fetch.ts).
 */
let slack: FakeSlack
beforeEach(async () => { slack = await startFakeSlack({ anyChannel: true }) })
afterEach(async () => slack.close())

async function failedPost(apiUrl: string, fault?: SlackFault): Promise<unknown> {
  if (fault) slack.faults.push({ method: 'chat.postMessage', fault })
  // A short timeout only where the answer never comes: elsewhere a slow machine must not turn an answer into a timeout.
  const timeout = fault && 'lostAnswer' in fault && fault.lostAnswer === 'hang' ? 200 : 10_000
  const client = new WebClient(TEST_SLACK_TOKEN, { slackApiUrl: apiUrl, retryConfig: { retries: 0 }, timeout, logger: silent, fetch: createSlackFetch() })
  try {
    await client.chat.postMessage({ channel: 'C0000000001', text: 'x' })
  } catch (error) {
    return error
  }
  throw new Error('the post did not fail')
}

const silent = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} }

describe('mayHavePosted', () => {
  it.each<[string, SlackFault]>([
    ['a 429 with Retry-After (waited out, then refused)', { status: 429, headers: { 'retry-after': '0' } }],
    ['a 429 without Retry-After', { status: 429 }],
    ['ok:false not_in_channel', { error: 'not_in_channel' }],
    ['ok:false ratelimited', { error: 'ratelimited' }],
  ])('known not posted: %s', async (_name, fault) => {
    expect(mayHavePosted(await failedPost(slack.url, fault))).toBe(false)
    expect(slack.messages.size).toBe(0)
  })

  it('known not posted: a connection refused before anything was sent', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    expect(mayHavePosted(await failedPost(`http://127.0.0.1:${port}/api/`))).toBe(false)
  })

  it.each<[string, SlackFault]>([
    ['a 500', { status: 500 }],
    ['a 503', { status: 503 }],
    ['a reset connection', { reset: true }],
    ['ok:false internal_error (Slack: some of it may have succeeded)', { error: 'internal_error' }],
    ['a timeout after Slack posted', { lostAnswer: 'hang' }],
    ['a reset after Slack posted', { lostAnswer: 'reset' }],
  ])('unknown: %s', async (_name, fault) => {
    expect(mayHavePosted(await failedPost(slack.url, fault))).toBe(true)
  })
})
