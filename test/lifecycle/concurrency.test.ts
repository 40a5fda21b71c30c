import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'

const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  // Slack answers slowly, so deliveries pile up in the mailboxes while earlier ones are still in flight.
  slack.latencyMs = 15
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
})
afterEach(async () => {
  await service.stop()
  await slack.close()
  dir.remove()
})

const postsFor = (n: number) => slack.calls.filter((c) => c.method === 'chat.postMessage' && String(c.body.text).includes(`#${n}`))

describe('concurrency and retries', () => {
  it('20 concurrent deliveries for one new PR (retries of one id, reviews, comments) post exactly once', async () => {
    const deliveries = [
      ...Array.from({ length: 6 }, () => ({ event: 'pull_request', payload: pullRequest('opened', 31), deliveryId: 'opened-31' })),
      ...Array.from({ length: 7 }, (_, i) => ({ event: 'pull_request_review', payload: review(i % 2 ? 'approved' : 'commented', 31, `reviewer${i}`) })),
      ...Array.from({ length: 7 }, (_, i) => ({ event: 'issue_comment', payload: conversationComment(31, `commenter${i}`) })),
    ]
    const responses = await Promise.all(deliveries.map((d) => deliver(service.url, 'github', d)))
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200))
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ status: string; reason?: string }>))
    expect(bodies.filter((b) => b.status === 'accepted')).toHaveLength(15)
    expect(bodies.filter((b) => b.reason === 'duplicate_delivery')).toHaveLength(5)
    expect(await service.settle(20_000)).toBe(true)
    expect(slack.count('chat.postMessage')).toBe(1)
    const [message] = slack.messagesIn(CHANNEL)
    expect(JSON.stringify(message?.blocks)).toMatch(/reviewer1, reviewer3, reviewer5/)
  })

  it('50 PRs with concurrent events end with exactly one message each', async () => {
    const deliveries = Array.from({ length: 50 }, (_, i) => 100 + i).flatMap((n) => [
      { event: 'pull_request', payload: pullRequest('opened', n) },
      { event: 'pull_request_review', payload: review('approved', n, 'carol') },
      { event: 'issue_comment', payload: conversationComment(n, 'dave') },
    ])
    const responses = await Promise.all(deliveries.map((d) => deliver(service.url, 'github', d)))
    expect(responses.every((r) => r.status === 200)).toBe(true)
    expect(await service.settle(30_000)).toBe(true)
    expect(slack.count('chat.postMessage')).toBe(50)
    for (let n = 100; n < 150; n++) expect(postsFor(n), `PR #${n}`).toHaveLength(1)
    expect([...slack.messages.values()].every((m) => m.reactions.has('white_check_mark') && m.reactions.has('speech_balloon'))).toBe(true)
  })
})
