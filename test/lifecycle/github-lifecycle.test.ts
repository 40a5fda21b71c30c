import { beforeEach, describe, expect, it } from 'vitest'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { conversationComment, pullRequest, review, reviewComment } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const CHANNEL = 'C0000000001'
const h = usePrherald({ config: { mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL, mentions: ['<@U0000ALICE>'] } } } }, start: true })

async function send(event: string, payload: unknown): Promise<void> {
  const res = await deliver(h.service!.url, 'github', { event, payload })
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
}

const only = () => {
  const messages = h.slack.messagesIn(CHANNEL)
  expect(messages).toHaveLength(1)
  return messages[0]!
}
const ignored = (reason: string) => h.service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === reason)

describe('GitHub lifecycle: no message yet', () => {
  it('opened posts one message with the mentions, a link and the repository', async () => {
    await send('pull_request', pullRequest('opened', 7, { title: 'Add rate limiting' }))
    const message = only()
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect(JSON.stringify(message.blocks)).toContain('<@U0000ALICE>')
    expect(JSON.stringify(message.blocks)).toContain('https://github.com/Codertocat/Hello-World/pull/7')
    expect(message.text).toContain('Add rate limiting')
  })

  it.each(['reopened', 'ready_for_review'])('%s posts when no message is stored', async (action) => {
    await send('pull_request', pullRequest(action, 8))
    only()
  })

  it('opened as draft is ignored with reason draft', async () => {
    await send('pull_request', pullRequest('opened', 9, { draft: true }))
    expect(h.slack.calls).toHaveLength(0)
    expect(ignored('draft')).toHaveLength(1)
  })

  it('converted_to_draft is ignored with reason draft', async () => {
    await send('pull_request', pullRequest('converted_to_draft', 10, { draft: true }))
    expect(h.slack.calls).toHaveLength(0)
    expect(ignored('draft')).toHaveLength(1)
  })

  it.each([
    ['approved', 'white_check_mark'],
    ['changes_requested', 'exclamation'],
    ['commented', 'speech_balloon'],
  ] as const)('a review (%s) posts, then reacts', async (state, reaction) => {
    await send('pull_request_review', review(state, 11, 'carol'))
    const message = only()
    expect([...message.reactions]).toEqual([reaction])
  })

  it('a conversation comment and a review comment post once, then react once', async () => {
    await send('issue_comment', conversationComment(12, 'dave'))
    await send('pull_request_review_comment', reviewComment(12, 'erin'))
    const message = only()
    expect([...message.reactions]).toEqual(['speech_balloon'])
    expect(message.text + JSON.stringify(message.blocks)).toMatch(/2 comments/)
  })

  it.each([
    ['pull_request_review', () => review('dismissed', 13, 'carol')],
    ['pull_request', () => pullRequest('edited', 13, { title: 'New title' })],
  ] as const)('%s without a stored message is ignored with no_stored_message', async (event, payload) => {
    await send(event, payload())
    expect(h.slack.calls).toHaveLength(0)
    expect(ignored('no_stored_message')).toHaveLength(1)
  })

  it.each([
    ['merged', () => pullRequest('closed', 13, { merged: true })],
    ['closed', () => pullRequest('closed', 13)],
  ] as const)('%s without a stored message is ignored with ended_before_announced', async (_kind, payload) => {
    await send('pull_request', payload())
    expect(h.slack.calls).toHaveLength(0)
    expect(ignored('ended_before_announced')).toHaveLength(1)
  })
})

describe('GitHub lifecycle: message exists', () => {
  beforeEach(async () => {
    await send('pull_request', pullRequest('opened', 20, { title: 'Original title' }))
  })

  it('reopened and ready_for_review update the one message when what it shows changes', async () => {
    await send('pull_request', pullRequest('reopened', 20, { title: 'Reopened title' }))
    await send('pull_request', pullRequest('ready_for_review', 20, { title: 'Ready title' }))
    expect(only().updates).toBe(2)
    expect(only().text).toContain('Ready title')
    expect(h.slack.count('chat.postMessage')).toBe(1)
  })

  it('a delivery that changes nothing the message shows makes no Slack call, and is still applied', async () => {
    const callsBefore = h.slack.calls.length
    await send('pull_request', pullRequest('opened', 20, { title: 'Original title' }))
    await send('pull_request', pullRequest('ready_for_review', 20, { title: 'Original title' }))
    expect(h.slack.calls.length).toBe(callsBefore)
    expect(only().updates).toBe(0)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
  })

  it('converted_to_draft marks the message as a draft and reacts; ready_for_review takes it back', async () => {
    await send('pull_request', pullRequest('converted_to_draft', 20, { draft: true }))
    expect(only().reactions.has('construction')).toBe(true)
    expect(JSON.stringify(only().blocks)).toMatch(/[Dd]raft/)
    await send('pull_request', pullRequest('ready_for_review', 20))
    expect(only().reactions.has('construction')).toBe(false)
  })

  it('opened as draft on an announced PR updates it', async () => {
    await send('pull_request', pullRequest('opened', 20, { draft: true }))
    expect(only().updates).toBe(1)
  })

  it('reviews add their reaction once and show in the status line', async () => {
    await send('pull_request_review', review('approved', 20, 'carol'))
    await send('pull_request_review', review('approved', 20, 'frank'))
    await send('pull_request_review', review('changes_requested', 20, 'dave'))
    const message = only()
    expect([...message.reactions].sort()).toEqual(['exclamation', 'white_check_mark'])
    expect(h.slack.count('reactions.add')).toBe(2)
    const rendered = JSON.stringify(message.blocks)
    expect(rendered).toMatch(/Approved by carol, frank/)
    expect(rendered).toMatch(/Changes requested by dave/)
  })

  it('a dismissed review removes its reaction only when no such review remains', async () => {
    await send('pull_request_review', review('approved', 20, 'carol'))
    await send('pull_request_review', review('approved', 20, 'frank'))
    await send('pull_request_review', review('dismissed', 20, 'carol'))
    expect(only().reactions.has('white_check_mark')).toBe(true)
    await send('pull_request_review', review('dismissed', 20, 'frank'))
    expect(only().reactions.has('white_check_mark')).toBe(false)
    expect(h.slack.count('reactions.remove')).toBe(1)
  })

  it('a bot reviewer also gets robot_face', async () => {
    await send('pull_request_review', review('commented', 20, 'dependabot[bot]', { bot: true }))
    expect([...only().reactions].sort()).toEqual(['robot_face', 'speech_balloon'])
  })

  it('a title edit updates the title', async () => {
    await send('pull_request', pullRequest('edited', 20, { title: 'Renamed pull request' }))
    expect(JSON.stringify(only().blocks)).toContain('Renamed pull request')
    expect(JSON.stringify(only().blocks)).not.toContain('Original title')
  })

  it('merged strikes the title, marks [Merged] and reacts', async () => {
    await send('pull_request', pullRequest('closed', 20, { merged: true, title: 'Original title' }))
    const rendered = JSON.stringify(only().blocks)
    expect(rendered).toContain('[Merged]')
    expect(rendered).toMatch(/~[^~]*Original title[^~]*~/)
    expect([...only().reactions]).toEqual(['twisted_rightwards_arrows'])
  })

  it('closed strikes the title, marks [Closed] and reacts', async () => {
    await send('pull_request', pullRequest('closed', 20))
    expect(JSON.stringify(only().blocks)).toContain('[Closed]')
    expect([...only().reactions]).toEqual(['x'])
  })

  it('a redelivered delivery id is ignored as duplicate_delivery', async () => {
    const payload = review('approved', 20, 'carol')
    const first = await deliver(h.service!.url, 'github', { event: 'pull_request_review', payload, deliveryId: 'same-id' })
    const second = await deliver(h.service!.url, 'github', { event: 'pull_request_review', payload, deliveryId: 'same-id' })
    expect(await first.json()).toEqual({ status: 'accepted' })
    expect(await second.json()).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
    await h.service!.settle(10_000)
    expect(h.slack.count('reactions.add')).toBe(1)
  })
})
