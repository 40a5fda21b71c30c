import { describe, expect, it } from 'vitest'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'
import { messagesOf, statusOf } from './pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * A delivery interrupted between its Slack calls (shutdown window over, or a crash) is replayed at the next
 * start. The replay must finish what the first run left undone, not skip it because the message exists.
 */
const CHANNEL = 'C0000000001'
const h = usePrherald({
  slack: { anyChannel: true },
  config: {
    server: { shutdown_timeout_seconds: 1 },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  },
})

describe('a delivery interrupted between its Slack calls', () => {
  it('shutdown after the post but before the reaction: the restart adds the reaction, without a second post', async () => {
    for (let i = 0; i < 10_000; i++) h.slack.faults.push({ method: 'reactions.add', fault: { status: 503 } })
    await h.start(h.env())
    // A review on a PR with no message yet: post, then the approval reaction, which Slack keeps refusing.
    const res = await deliver(h.service!.url, 'github', { event: 'pull_request_review', payload: review('approved', 61, 'carol') })
    expect(res.status).toBe(200)
    await waitFor('the post and a failing reaction', () => h.slack.count('chat.postMessage') === 1 && h.slack.count('reactions.add') >= 2)
    expect(await h.stop()).toEqual({ drained: false })
    expect(pendingDeliveries(h.dir.path)).toBe(1)

    h.slack.faults.length = 0
    await h.start(h.env())
    expect(await h.service!.settle(10_000)).toBe(true)
    const messages = messagesOf(h.slack, 'Codertocat', 61)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toBe('Approved by carol')
    expect([...messages[0]!.reactions]).toEqual(['white_check_mark'])
    await h.stop()
    expect(pendingDeliveries(h.dir.path)).toBe(0)
  })

  it('a deleted message is re-posted with every reaction the pull request has, not only the new one', async () => {
    await h.start(h.env())
    for (const d of [
      { event: 'pull_request', payload: pullRequest('opened', 62) },
      { event: 'pull_request_review', payload: review('approved', 62, 'carol') },
      { event: 'issue_comment', payload: conversationComment(62, 'dave') },
    ]) expect((await deliver(h.service!.url, 'github', d)).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect([...messagesOf(h.slack, 'Codertocat', 62)[0]!.reactions].sort()).toEqual(['speech_balloon', 'white_check_mark'])

    h.slack.messages.clear() // someone deletes the message in Slack
    expect((await deliver(h.service!.url, 'github', { event: 'issue_comment', payload: conversationComment(62, 'erin') })).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    const messages = messagesOf(h.slack, 'Codertocat', 62)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toBe('Approved by carol · 2 comments')
    expect([...messages[0]!.reactions].sort()).toEqual(['speech_balloon', 'white_check_mark'])
  })
})

describe('a post whose outcome is unknown, then the pull request ends before anything saw the post', () => {
  it('the end reaches the message the post made: the replay looks for it before calling the pull request ended unannounced', async () => {
    // The post is carried out in Slack, but its answer never comes: the intent stays, with no ts saved.
    h.slack.faults.push({ method: 'chat.postMessage', fault: { lostAnswer: 'hang' } })
    await h.start(h.env())
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 71) })).status).toBe(200)
    await waitFor('the post in Slack', () => h.slack.count('chat.postMessage') === 1)
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('closed', 71, { merged: true }) })).status).toBe(200)
    expect(await h.stop()).toEqual({ drained: false })
    expect(pendingDeliveries(h.dir.path)).toBe(2)

    // At the restart Slack's history cannot be read, so the start-up look-up leaves the intent as it is.
    for (let i = 0; i < 3; i++) h.slack.faults.push({ method: 'conversations.history', fault: { status: 500 } })
    await h.start(h.env())
    expect(await h.service!.settle(15_000)).toBe(true)
    expect(pendingDeliveries(h.dir.path)).toBe(0)

    const messages = messagesOf(h.slack, 'Codertocat', 71)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toMatch(/^Merged/)
    expect(messages[0]!.reactions.has('twisted_rightwards_arrows')).toBe(true)
  })
})

describe('a post still on its way to Slack when the process stops, then the pull request ends', () => {
  it('the restart waits for a post still travelling before it decides there is none: one message, final (chaos run #61)', async () => {
    // Slack carries the post out 3.5 s after it arrives, inside the client's timeout: when the process
    // stops, the post is neither answered nor in the channel yet, and it lands after the restart's first look.
    h.slack.faults.push({ method: 'chat.postMessage', fault: { delayMs: 3500 } })
    await h.start(h.env(), { slackTimeoutMs: 5000 })
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 72) })).status).toBe(200)
    await waitFor('the post on its way', () => h.slack.count('chat.postMessage') === 1)
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('closed', 72, { merged: true }) })).status).toBe(200)
    expect(await h.stop()).toEqual({ drained: false })
    expect(messagesOf(h.slack, 'Codertocat', 72)).toHaveLength(0)

    await h.start(h.env(), { slackTimeoutMs: 5000 })
    expect(await h.service!.settle(20_000)).toBe(true)
    await waitFor('the post to land', () => messagesOf(h.slack, 'Codertocat', 72).length > 0)
    expect(await h.service!.settle(20_000)).toBe(true)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
    const messages = messagesOf(h.slack, 'Codertocat', 72)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toMatch(/^Merged/)
  })
})
