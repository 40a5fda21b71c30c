import { beforeEach, describe, expect, it } from 'vitest'
import { deliver } from '../helpers/signed-delivery.ts'
import { bitbucketPayload, type BitbucketFacts } from './bitbucket-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const CHANNEL = 'C0000000009'
const h = usePrherald({ provider: 'bitbucket', config: { mappings: { acme: { api: { channel: CHANNEL, mentions: ['<!here>'] } } } }, start: true })

async function send(eventKey: string, facts: BitbucketFacts, options: { deliveryId?: string; attempt?: number } = {}) {
  const res = await deliver(h.service!.url, 'bitbucket', { event: `pullrequest:${eventKey}`, payload: bitbucketPayload(`pullrequest:${eventKey}`, facts), ...options })
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
  return (await res.json()) as { status: string; reason?: string }
}

const only = () => {
  const messages = h.slack.messagesIn(CHANNEL)
  expect(messages).toHaveLength(1)
  return messages[0]!
}
const ignored = (reason: string) => h.service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === reason)

describe('Bitbucket lifecycle: no message yet', () => {
  it('created posts one message', async () => {
    await send('created', { id: 1 })
    expect(JSON.stringify(only().blocks)).toContain('https://bitbucket.org/acme/api/pull-requests/1')
    expect(JSON.stringify(only().blocks)).toContain('<!here>')
  })

  it('created as draft is ignored with reason draft', async () => {
    await send('created', { id: 2, draft: true })
    expect(h.slack.calls).toHaveLength(0)
    expect(ignored('draft')).toHaveLength(1)
  })

  it('updated from draft to ready posts', async () => {
    await send('created', { id: 3, draft: true })
    await send('updated', { id: 3, draft: false })
    only()
  })

  it.each([
    ['approved', 'white_check_mark'],
    ['changes_request_created', 'exclamation'],
    ['comment_created', 'speech_balloon'],
  ])('%s posts, then reacts', async (key, reaction) => {
    await send(key, { id: 4, actor: 'carol' })
    expect([...only().reactions]).toEqual([reaction])
  })

  it.each(['unapproved', 'changes_request_removed'])('%s is ignored with no_stored_message', async (key) => {
    await send(key, { id: 5, state: 'OPEN' })
    expect(h.slack.calls).toHaveLength(0)
    expect(ignored('no_stored_message')).toHaveLength(1)
  })

  it.each(['fulfilled', 'rejected'])('%s is ignored with ended_before_announced', async (key) => {
    await send(key, { id: 5, state: key === 'fulfilled' ? 'MERGED' : 'DECLINED' })
    expect(h.slack.calls).toHaveLength(0)
    expect(ignored('ended_before_announced')).toHaveLength(1)
  })

  it('ignores repo:push and other event keys with a reason', async () => {
    const res = await deliver(h.service!.url, 'bitbucket', { event: 'repo:push', payload: { repository: { full_name: 'acme/api' } } })
    expect(await res.json()).toEqual({ status: 'ignored', reason: 'unsupported_event' })
  })
})

describe('Bitbucket lifecycle: message exists', () => {
  beforeEach(async () => {
    await send('created', { id: 10, title: 'Original title' })
  })

  it('updated to draft marks the draft and reacts; back to ready removes it', async () => {
    await send('updated', { id: 10, draft: true })
    expect(only().reactions.has('construction')).toBe(true)
    await send('updated', { id: 10, draft: false })
    expect(only().reactions.has('construction')).toBe(false)
    expect(h.slack.count('chat.postMessage')).toBe(1)
  })

  it('updated with a new title changes the title', async () => {
    await send('updated', { id: 10, title: 'Renamed' })
    expect(JSON.stringify(only().blocks)).toContain('Renamed')
  })

  it('approved then unapproved removes the reaction when no approval remains', async () => {
    await send('approved', { id: 10, actor: 'carol' })
    await send('approved', { id: 10, actor: 'dave' })
    await send('unapproved', { id: 10, actor: 'carol' })
    expect(only().reactions.has('white_check_mark')).toBe(true)
    await send('unapproved', { id: 10, actor: 'dave' })
    expect(only().reactions.has('white_check_mark')).toBe(false)
  })

  it('changes requested then removed takes the reaction away', async () => {
    await send('changes_request_created', { id: 10, actor: 'carol' })
    expect(only().reactions.has('exclamation')).toBe(true)
    await send('changes_request_removed', { id: 10, actor: 'carol' })
    expect(only().reactions.has('exclamation')).toBe(false)
  })

  it('a bot (app_user) comment also gets robot_face', async () => {
    await send('comment_created', { id: 10, actor: 'pipelines', actorType: 'app_user' })
    expect([...only().reactions].sort()).toEqual(['robot_face', 'speech_balloon'])
  })

  it('fulfilled marks [Merged]; rejected marks [Closed]', async () => {
    await send('fulfilled', { id: 10, state: 'MERGED' })
    expect(JSON.stringify(only().blocks)).toContain('[Merged]')
    expect(only().reactions.has('twisted_rightwards_arrows')).toBe(true)
    await send('created', { id: 11 })
    await send('rejected', { id: 11, state: 'DECLINED' })
    const declined = h.slack.messagesIn(CHANNEL).find((m) => m.text.includes('#11'))
    expect(JSON.stringify(declined?.blocks)).toContain('[Closed]')
    expect(declined?.reactions.has('x')).toBe(true)
  })

  it('a retry with X-Attempt-Number: 2 and the same X-Request-UUID changes nothing', async () => {
    const first = await send('approved', { id: 10, actor: 'carol' }, { deliveryId: 'bb-uuid-1', attempt: 1 })
    const callsAfterFirst = h.slack.calls.length
    const retry = await send('approved', { id: 10, actor: 'carol' }, { deliveryId: 'bb-uuid-1', attempt: 2 })
    expect(first).toEqual({ status: 'accepted' })
    expect(retry).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
    expect(h.slack.calls.length).toBe(callsAfterFirst)
  })
})
