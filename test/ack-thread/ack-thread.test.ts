import { describe, expect, it } from 'vitest'
import { deliver } from '../helpers/signed-delivery.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * `server.ack_thread: true`: the webhook listener and the intake on a thread of their own, everything else on
 * the main thread. The real service on 127.0.0.1, a real SQLite file, signed deliveries, the fake Slack.
 */
const CHANNEL = 'C0000000001'
const h = usePrherald({ config: { server: { ack_thread: true }, mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } } } })

async function send(event: string, payload: unknown, deliveryId?: string): Promise<unknown> {
  const res = await deliver(h.service!.url, 'github', { event, payload, ...(deliveryId ? { deliveryId } : {}) })
  expect(res.status).toBe(200)
  return res.json()
}

describe('the acknowledging thread', () => {
  it('acknowledges deliveries that the main thread makes into one message per pull request, opened, edited, merged', async () => {
    await h.start()
    expect(h.service!.server).toBeUndefined()
    expect(await send('pull_request', pullRequest('opened', 7, { title: 'Add rate limiting' }), 'd-opened')).toEqual({ status: 'accepted' })
    await send('pull_request', pullRequest('edited', 7, { title: 'Add rate limiting to the API' }))
    await send('pull_request', pullRequest('closed', 7, { title: 'Add rate limiting to the API', merged: true }))
    expect(await h.service!.settle(10_000)).toBe(true)
    const messages = h.slack.messagesIn(CHANNEL)
    expect(messages).toHaveLength(1)
    expect(messages[0]!.text).toContain('Add rate limiting to the API')
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect([...messages[0]!.reactions]).toContain('twisted_rightwards_arrows')
    // The same delivery id again: a duplicate, said by the thread's intake from the store.
    expect(await send('pull_request', pullRequest('opened', 7, { title: 'Add rate limiting' }), 'd-opened')).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
  })

  it('answers /readyz and /metrics through the main thread, and /metrics counts the thread\'s deliveries', async () => {
    await h.start()
    const ready = await fetch(`${h.service!.url}/readyz`)
    expect(ready.status).toBe(200)
    await send('pull_request', pullRequest('opened', 8))
    await send('pull_request', pullRequest('opened', 9))
    const refused = await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 10), secret: 'not-the-secret' })
    expect(refused.status).toBe(401)
    const metrics = await (await fetch(h.service!.metricsUrl)).text()
    expect(metrics).toContain('prherald_deliveries_total{provider="github",result="accepted",reason=""} 2')
    expect(metrics).toContain('prherald_deliveries_total{provider="github",result="rejected",reason="bad_signature"} 1')
    const missing = await fetch(`${h.service!.url}/no-such-route`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: 'not_found' })
  })
})
