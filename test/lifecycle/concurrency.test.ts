import { beforeEach, describe, expect, it } from 'vitest'
import { deliver } from '../helpers/signed-delivery.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const CHANNEL = 'C0000000001'
const h = usePrherald({ config: { mappings: { Codertocat: { '*': { channel: CHANNEL } } } } })

beforeEach(async () => {
  // Slack answers slowly, so deliveries pile up in the mailboxes while earlier ones are still in flight.
  h.slack.latencyMs = 15
  await h.start()
})

const postsFor = (n: number) => h.slack.calls.filter((c) => c.method === 'chat.postMessage' && String(c.body.text).includes(`#${n}`))

describe('concurrency and retries', () => {
  it('20 concurrent deliveries for one new PR (retries of one id, reviews, comments) post exactly once', async () => {
    const deliveries = [
      ...Array.from({ length: 6 }, () => ({ event: 'pull_request', payload: pullRequest('opened', 31), deliveryId: 'opened-31' })),
      ...Array.from({ length: 7 }, (_, i) => ({ event: 'pull_request_review', payload: review(i % 2 ? 'approved' : 'commented', 31, `reviewer${i}`) })),
      ...Array.from({ length: 7 }, (_, i) => ({ event: 'issue_comment', payload: conversationComment(31, `commenter${i}`) })),
    ]
    const responses = await Promise.all(deliveries.map((d) => deliver(h.service!.url, 'github', d)))
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200))
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ status: string; reason?: string }>))
    expect(bodies.filter((b) => b.status === 'accepted')).toHaveLength(15)
    expect(bodies.filter((b) => b.reason === 'duplicate_delivery')).toHaveLength(5)
    expect(await h.service!.settle(20_000)).toBe(true)
    expect(h.slack.count('chat.postMessage')).toBe(1)
    const [message] = h.slack.messagesIn(CHANNEL)
    expect(JSON.stringify(message?.blocks)).toMatch(/reviewer1, reviewer3, reviewer5/)
  })

  it('50 PRs with concurrent events end with exactly one message each', async () => {
    const deliveries = Array.from({ length: 50 }, (_, i) => 100 + i).flatMap((n) => [
      { event: 'pull_request', payload: pullRequest('opened', n) },
      { event: 'pull_request_review', payload: review('approved', n, 'carol') },
      { event: 'issue_comment', payload: conversationComment(n, 'dave') },
    ])
    const responses = await Promise.all(deliveries.map((d) => deliver(h.service!.url, 'github', d)))
    expect(responses.every((r) => r.status === 200)).toBe(true)
    expect(await h.service!.settle(30_000)).toBe(true)
    expect(h.slack.count('chat.postMessage')).toBe(50)
    for (let n = 100; n < 150; n++) expect(postsFor(n), `PR #${n}`).toHaveLength(1)
    expect([...h.slack.messages.values()].every((m) => m.reactions.has('white_check_mark') && m.reactions.has('speech_balloon'))).toBe(true)
  })
})
