import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'
import { messagesOf, statusOf } from './pr-messages.ts'

/**
 * A delivery interrupted between its Slack calls (shutdown window over, or a crash) is replayed at the next
 * start. The replay must finish what the first run left undone, not skip it because the message exists.
 */
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  writeConfig(dir.path, {
    git_provider: 'github',
    server: { shutdown_timeout_seconds: 1 },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  })
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })

describe('a delivery interrupted between its Slack calls', () => {
  it('shutdown after the post but before the reaction: the restart adds the reaction, without a second post', async () => {
    for (let i = 0; i < 10_000; i++) slack.faults.push({ method: 'reactions.add', fault: { status: 503 } })
    service = await startPrherald(dir.path, env())
    // A review on a PR with no message yet: post, then the approval reaction, which Slack keeps refusing.
    const res = await deliver(service.url, 'github', { event: 'pull_request_review', payload: review('approved', 61, 'carol') })
    expect(res.status).toBe(200)
    await waitFor('the post and a failing reaction', () => slack.count('chat.postMessage') === 1 && slack.count('reactions.add') >= 2)
    expect(await service.stop()).toEqual({ drained: false })
    service = undefined
    expect(pendingDeliveries(dir.path)).toBe(1)

    slack.faults.length = 0
    service = await startPrherald(dir.path, env())
    expect(await service.settle(10_000)).toBe(true)
    const messages = messagesOf(slack, 'Codertocat', 61)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toBe('Approved by carol')
    expect([...messages[0]!.reactions]).toEqual(['white_check_mark'])
    await service.stop()
    service = undefined
    expect(pendingDeliveries(dir.path)).toBe(0)
  })

  it('a deleted message is re-posted with every reaction the pull request has, not only the new one', async () => {
    service = await startPrherald(dir.path, env())
    for (const d of [
      { event: 'pull_request', payload: pullRequest('opened', 62) },
      { event: 'pull_request_review', payload: review('approved', 62, 'carol') },
      { event: 'issue_comment', payload: conversationComment(62, 'dave') },
    ]) expect((await deliver(service.url, 'github', d)).status).toBe(200)
    expect(await service.settle(10_000)).toBe(true)
    expect([...messagesOf(slack, 'Codertocat', 62)[0]!.reactions].sort()).toEqual(['speech_balloon', 'white_check_mark'])

    slack.messages.clear() // someone deletes the message in Slack
    expect((await deliver(service.url, 'github', { event: 'issue_comment', payload: conversationComment(62, 'erin') })).status).toBe(200)
    expect(await service.settle(10_000)).toBe(true)
    const messages = messagesOf(slack, 'Codertocat', 62)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toBe('Approved by carol · 2 comments')
    expect([...messages[0]!.reactions].sort()).toEqual(['speech_balloon', 'white_check_mark'])
  })
})

describe('a post whose outcome is unknown, then the pull request ends before anything saw the post', () => {
  it('the end reaches the message the post made: the replay looks for it before calling the pull request ended unannounced', async () => {
    // The post is carried out in Slack, but its answer never comes: the intent stays, with no ts saved.
    slack.faults.push({ method: 'chat.postMessage', fault: { lostAnswer: 'hang' } })
    service = await startPrherald(dir.path, env())
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 71) })).status).toBe(200)
    await waitFor('the post in Slack', () => slack.count('chat.postMessage') === 1)
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('closed', 71, { merged: true }) })).status).toBe(200)
    expect(await service.stop()).toEqual({ drained: false })
    service = undefined
    expect(pendingDeliveries(dir.path)).toBe(2)

    // At the restart Slack's history cannot be read, so the start-up look-up leaves the intent as it is.
    for (let i = 0; i < 3; i++) slack.faults.push({ method: 'conversations.history', fault: { status: 500 } })
    service = await startPrherald(dir.path, env())
    expect(await service.settle(15_000)).toBe(true)
    expect(pendingDeliveries(dir.path)).toBe(0)

    const messages = messagesOf(slack, 'Codertocat', 71)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toMatch(/^Merged/)
    expect(messages[0]!.reactions.has('twisted_rightwards_arrows')).toBe(true)
  })
})

describe('a post still on its way to Slack when the process stops, then the pull request ends', () => {
  it('the restart waits for a post still travelling before it decides there is none: one message, final (chaos run #61)', async () => {
    // Slack carries the post out 3.5 s after it arrives, inside the client's timeout: when the process
    // stops, the post is neither answered nor in the channel yet, and it lands after the restart's first look.
    slack.faults.push({ method: 'chat.postMessage', fault: { delayMs: 3500 } })
    service = await startPrherald(dir.path, env(), { slackTimeoutMs: 5000 })
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 72) })).status).toBe(200)
    await waitFor('the post on its way', () => slack.count('chat.postMessage') === 1)
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('closed', 72, { merged: true }) })).status).toBe(200)
    expect(await service.stop()).toEqual({ drained: false })
    service = undefined
    expect(messagesOf(slack, 'Codertocat', 72)).toHaveLength(0)

    service = await startPrherald(dir.path, env(), { slackTimeoutMs: 5000 })
    expect(await service.settle(20_000)).toBe(true)
    await waitFor('the post to land', () => messagesOf(slack, 'Codertocat', 72).length > 0)
    expect(await service.settle(20_000)).toBe(true)
    expect(pendingDeliveries(dir.path)).toBe(0)
    const messages = messagesOf(slack, 'Codertocat', 72)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toMatch(/^Merged/)
  })
})
