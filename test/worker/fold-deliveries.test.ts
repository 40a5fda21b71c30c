import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { statusOf } from '../faults/pr-messages.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'

/**
 * Folding: deliveries queued for one pull request are run through the machine together and carried out
 * once. Every wait here is on a count or a gate the test opens, never on a duration.
 */
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'github', server: { shutdown_timeout_seconds: 1 }, mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
})
afterEach(async () => {
  slack.faults.length = 0
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })
// Long enough that the client never gives up on a call the fake is holding for the test.
const start = () => startPrherald(dir.path, env(), { slackTimeoutMs: 30_000 })

async function send(event: string, payload: unknown): Promise<void> {
  const res = await deliver(service!.url, 'github', { event, payload })
  expect(res.status).toBe(200)
}

const count = (method: string, pr: number) =>
  slack.calls.filter((c) => c.method === method && (method !== 'chat.postMessage' || String(c.body.text).startsWith(`PR #${pr}: `))).length
const reactionCalls = (name: string) => slack.calls.filter((c) => c.method.startsWith('reactions.') && c.body.name === name).length
const changed = () => service!.entries().filter((e) => e.msg === 'slack message changed')

/** Holds the next `method` call in the fake until the returned function is called. */
function holdNext(method: string): () => void {
  let release!: () => void
  slack.faults.push({ method, fault: { until: new Promise<void>((resolve) => { release = resolve }) } })
  return release
}

/** Leaves the given deliveries pending: Slack refuses every post, and the service stops before they apply. */
async function leavePending(deliveries: Array<[string, unknown]>): Promise<void> {
  for (let i = 0; i < 10_000; i++) slack.faults.push({ method: 'chat.postMessage', fault: { status: 503 } })
  service = await start()
  for (const [event, payload] of deliveries) await send(event, payload)
  await waitFor('a post to be refused', () => slack.count('chat.postMessage') > 0)
  expect(await service.stop()).toEqual({ drained: false })
  service = undefined
  expect(pendingDeliveries(dir.path)).toBe(deliveries.length)
  slack.faults.length = 0
  slack.calls.length = 0
}

describe('folding a pull request\'s queued deliveries', () => {
  it('a stack of deliveries queued behind a slow Slack call produces one chat.update', async () => {
    service = await start()
    await send('pull_request', pullRequest('opened', 1))
    expect(await service.settle(10_000)).toBe(true)

    const release = holdNext('chat.update')
    await send('issue_comment', conversationComment(1, 'dave'))
    await waitFor('the first update to reach Slack and be held', () => slack.count('chat.update') === 1)
    // Five more deliveries while that call is held: all acknowledged, all queued in the PR's mailbox.
    await send('pull_request_review', review('approved', 1, 'carol'))
    await send('pull_request_review', review('commented', 1, 'erin'))
    await send('pull_request_review', review('changes_requested', 1, 'frank'))
    await send('issue_comment', conversationComment(1, 'grace'))
    await send('pull_request', pullRequest('edited', 1, { title: 'A better title' }))
    expect(slack.count('chat.update')).toBe(1)
    release()
    expect(await service.settle(10_000)).toBe(true)

    expect(slack.count('chat.update')).toBe(2) // the held one, then one for all five
    expect(changed().at(-1)).toMatchObject({ pr: 1, deliveries: 5, changes: ['updated', '+white_check_mark', '+exclamation'] })
    const [message] = slack.messagesIn(CHANNEL)
    expect(message!.text).toContain('A better title')
    expect([...message!.reactions].sort()).toEqual(['exclamation', 'speech_balloon', 'white_check_mark'])
    expect(reactionCalls('white_check_mark')).toBe(1)
    expect(reactionCalls('exclamation')).toBe(1)
  })

  it('a reaction added then removed within a fold makes no reaction call', async () => {
    service = await start()
    await send('pull_request', pullRequest('opened', 2))
    expect(await service.settle(10_000)).toBe(true)

    const release = holdNext('chat.update')
    await send('issue_comment', conversationComment(2, 'dave'))
    await waitFor('the first update to be held', () => slack.count('chat.update') === 1)
    await send('pull_request_review', review('approved', 2, 'carol'))
    await send('pull_request_review', review('dismissed', 2, 'carol'))
    release()
    expect(await service.settle(10_000)).toBe(true)

    expect(reactionCalls('white_check_mark')).toBe(0)
    expect(slack.calls.filter((c) => c.method === 'reactions.remove')).toHaveLength(0)
    expect([...slack.messagesIn(CHANNEL)[0]!.reactions]).toEqual(['speech_balloon'])
    expect(pendingDeliveries(dir.path)).toBe(0)
  })

  it('a first announcement made after several deliveries were queued already shows the latest state', async () => {
    await leavePending([
      ['pull_request', pullRequest('opened', 3)],
      ['pull_request_review', review('approved', 3, 'carol')],
      ['issue_comment', conversationComment(3, 'dave')],
    ])
    service = await start() // replays the three pending deliveries as one batch
    expect(await service.settle(10_000)).toBe(true)

    expect(count('chat.postMessage', 3)).toBe(1)
    expect(slack.count('chat.update')).toBe(0)
    expect(statusOf(slack.messagesIn(CHANNEL)[0]!)).toBe('Approved by carol · 1 comment')
    expect([...slack.messagesIn(CHANNEL)[0]!.reactions].sort()).toEqual(['speech_balloon', 'white_check_mark'])
    expect(pendingDeliveries(dir.path)).toBe(0)
  })

  it('a pull request that ended before it was announced posts nothing', async () => {
    // The merge arrives first (hosts do not keep order), then the opened and a comment.
    service = await start()
    await send('pull_request', pullRequest('closed', 4, { merged: true }))
    await send('pull_request', pullRequest('opened', 4))
    await send('issue_comment', conversationComment(4, 'dave'))
    expect(await service.settle(10_000)).toBe(true)

    expect(slack.calls.filter((c) => c.method !== 'auth.test' && c.method !== 'conversations.info')).toHaveLength(0)
    expect(pendingDeliveries(dir.path)).toBe(0)
    expect(service.entries().filter((e) => e.reason === 'ended_before_announced')).toHaveLength(3)
  })
})
