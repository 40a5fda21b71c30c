import { describe, expect, it } from 'vitest'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { signedDelivery } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'

/**
 * Issue 23.1, as reproduced against a running server: a captured delivery's signed bytes sent again under a
 * fresh delivery id. The signature covers the body only, so the body is what tells the replay.
 */
const CHANNEL = 'C0000000001'
const h = usePrherald()

async function start(provider: 'github' | 'bitbucket', owner: string, repo: string) {
  writeConfig(h.dir.path, { git_provider: provider, mappings: { [owner]: { [repo]: { channel: CHANNEL } } } })
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url }))
}

/** Sends a signed delivery (bytes and headers as given) and waits for its work to settle. */
async function post(provider: string, delivery: { body: string; headers: Record<string, string> }) {
  const res = await fetch(`${h.service!.url}/webhook/${provider}`, { method: 'POST', headers: delivery.headers, body: delivery.body })
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
  return (await res.json()) as { status: string; reason?: string }
}

const message = () => {
  const messages = h.slack.messagesIn(CHANNEL)
  expect(messages).toHaveLength(1)
  return messages[0]!
}
const replies = () => h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.thread_ts !== undefined).length

describe('a replayed delivery', () => {
  it('GitHub: the approval\'s bytes under a fresh id after its dismissal are refused, and the message and thread stay as they are', async () => {
    await start('github', 'Codertocat', 'Hello-World')
    await post('github', signedDelivery('github', { event: 'pull_request', payload: pullRequest('opened', 30) }))
    const approval = signedDelivery('github', { event: 'pull_request_review', payload: review('approved', 30, 'carol', { reviewId: 4101 }) })
    expect(await post('github', approval)).toEqual({ status: 'accepted' })
    await post('github', signedDelivery('github', { event: 'pull_request_review', payload: review('dismissed', 30, 'carol', { reviewId: 4101 }) }))
    expect(message().reactions.has('white_check_mark')).toBe(false)
    const threadBefore = replies()

    const replay = { body: approval.body, headers: { ...approval.headers, 'x-github-delivery': 'a-fresh-delivery-id' } }
    expect(await post('github', replay)).toEqual({ status: 'ignored', reason: 'replayed_body' })
    // The host's own redelivery keeps id and body: still a duplicate.
    expect(await post('github', approval)).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
    expect(message().reactions.has('white_check_mark')).toBe(false)
    expect(JSON.stringify(message().blocks)).not.toMatch(/Approved by carol/)
    expect(replies()).toBe(threadBefore)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({
      msg: 'ignored webhook event', reason: 'replayed_body', delivery_id: 'a-fresh-delivery-id', first_delivery_id: approval.headers['x-github-delivery'],
    }))
  })

  it('GitHub: other bytes of a dismissed review (past the replay window) never count as an approval again', async () => {
    await start('github', 'Codertocat', 'Hello-World')
    await post('github', signedDelivery('github', { event: 'pull_request', payload: pullRequest('opened', 31) }))
    await post('github', signedDelivery('github', { event: 'pull_request_review', payload: review('approved', 31, 'carol', { reviewId: 4201 }) }))
    await post('github', signedDelivery('github', { event: 'pull_request_review', payload: review('dismissed', 31, 'carol', { reviewId: 4201 }) }))
    const again = review('approved', 31, 'carol', { reviewId: 4201 })
    again.review.submitted_at = '2031-01-01T00:00:00Z' // a later time changes nothing: ids are compared, not times
    await post('github', signedDelivery('github', { event: 'pull_request_review', payload: again }))
    expect(message().reactions.has('white_check_mark')).toBe(false)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'ignored webhook event', reason: 'dismissed_review' }))
    // A new review of the same person counts.
    await post('github', signedDelivery('github', { event: 'pull_request_review', payload: review('approved', 31, 'carol', { reviewId: 4202 }) }))
    expect(message().reactions.has('white_check_mark')).toBe(true)
  })

  it('Bitbucket: an approval\'s bytes under a fresh X-Request-UUID after unapproval are refused', async () => {
    await start('bitbucket', 'acme', 'api')
    await post('bitbucket', signedDelivery('bitbucket', { event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id: 5 }) }))
    const approval = signedDelivery('bitbucket', { event: 'pullrequest:approved', payload: bitbucketPayload('pullrequest:approved', { id: 5, actor: 'carol' }) })
    await post('bitbucket', approval)
    await post('bitbucket', signedDelivery('bitbucket', { event: 'pullrequest:unapproved', payload: bitbucketPayload('pullrequest:unapproved', { id: 5, actor: 'carol' }) }))
    const replay = { body: approval.body, headers: { ...approval.headers, 'x-request-uuid': 'another-uuid' } }
    expect(await post('bitbucket', replay)).toEqual({ status: 'ignored', reason: 'replayed_body' })
    expect(message().reactions.has('white_check_mark')).toBe(false)
  })
})
