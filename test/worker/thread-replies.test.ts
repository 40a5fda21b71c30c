import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'

/**
 * slack.thread_updates (issue 14.3): one reply in the message's thread per event that changes what the
 * message says, through the real server, with GitHub's example payloads and a fake Slack over HTTP.
 */
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  config()
})
afterEach(async () => {
  slack.faults.length = 0
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

function config(extra: Record<string, unknown> = {}): void {
  writeConfig(dir.path, {
    git_provider: 'github', server: { shutdown_timeout_seconds: 1 }, slack: { thread_updates: true },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } }, ...extra,
  })
}

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })
const start = (slackTimeoutMs = 2000) => startPrherald(dir.path, env(), { slackTimeoutMs })

async function send(event: string, payload: unknown, deliveryId?: string): Promise<void> {
  const res = await deliver(service!.url, 'github', { event, payload, deliveryId })
  expect(res.status).toBe(200)
}

const message = () => {
  const [m] = slack.messagesIn(CHANNEL)
  expect(m).toBeDefined()
  return m!
}
const replies = () => slack.repliesTo(CHANNEL, message().ts).map((r) => r.text)
const replyCalls = () => slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.thread_ts !== undefined)

async function opened(number = 1): Promise<void> {
  service ??= await start()
  await send('pull_request', pullRequest('opened', number))
  expect(await service.settle(10_000)).toBe(true)
}

describe('thread updates', () => {
  it('replies once per event that changes the message, in the thread, never broadcast, and not for the announcement', async () => {
    await opened()
    await send('pull_request_review', review('approved', 1, 'carol'))
    expect(await service!.settle(10_000)).toBe(true)
    await send('pull_request_review', review('changes_requested', 1, 'dave'))
    expect(await service!.settle(10_000)).toBe(true)
    await send('pull_request', pullRequest('closed', 1, { merged: true }))
    expect(await service!.settle(10_000)).toBe(true)

    expect(replies()).toEqual([':white_check_mark: carol approved', ':exclamation: dave requested changes', ':twisted_rightwards_arrows: merged by Codertocat'])
    expect(slack.messagesIn(CHANNEL)).toHaveLength(1)
    for (const call of replyCalls()) {
      expect(call.body.thread_ts).toBe(message().ts)
      expect(String(call.body.reply_broadcast)).toBe('false')
      expect(JSON.parse(String(call.body.metadata))).toMatchObject({ event_type: 'prherald_thread_reply', event_payload: { pr: 'github:Codertocat/Hello-World#1' } })
    }
  })

  it('a change request mentions the author when users: maps them, and nobody else', async () => {
    config({ users: { codertocat: 'U0AUTHOR1', carol: 'U0CAROL01', dave: 'U0DAVE001' } })
    await opened()
    await send('pull_request_review', review('approved', 1, 'carol'))
    await send('pull_request_review', review('changes_requested', 1, 'dave'))
    expect(await service!.settle(10_000)).toBe(true)
    expect(replies()).toEqual([':white_check_mark: carol approved', ':exclamation: dave requested changes · <@U0AUTHOR1>'])
  })

  it('a folded batch gives one reply per event', async () => {
    await opened()
    // Slack refuses updates while three deliveries arrive; the service stops, and the restart replays them as one batch.
    for (let i = 0; i < 10_000; i++) slack.faults.push({ method: 'chat.update', fault: { status: 503 } })
    await send('pull_request_review', review('approved', 1, 'carol'))
    await send('pull_request_review', review('approved', 1, 'erin'))
    await send('pull_request', pullRequest('converted_to_draft', 1, { draft: true }))
    await waitFor('an update to be refused', () => slack.count('chat.update') > 0)
    expect(await service!.stop()).toEqual({ drained: false })
    expect(pendingDeliveries(dir.path)).toBe(3)
    slack.faults.length = 0
    service = await start()
    expect(await service.settle(10_000)).toBe(true)

    expect(service.entries().filter((e) => e.msg === 'slack message changed').at(-1)).toMatchObject({ deliveries: 3 })
    expect(replies()).toEqual([':white_check_mark: carol approved', ':white_check_mark: erin approved', ':construction: Codertocat moved it back to draft'])
    expect(pendingDeliveries(dir.path)).toBe(0)
  })

  it('a repeated delivery and an event that changes nothing get no reply', async () => {
    await opened()
    await send('pull_request_review', review('approved', 1, 'carol'), 'approval-1')
    await send('pull_request_review', review('approved', 1, 'carol'), 'approval-1') // the same delivery again
    await send('pull_request_review', review('approved', 1, 'carol'), 'approval-2') // carol approves again: nothing new
    await send('pull_request_review', review('commented', 1, 'dave')) // changes the message, but is not thread news
    expect(await service!.settle(10_000)).toBe(true)
    expect(replies()).toEqual([':white_check_mark: carol approved'])
    expect(replyCalls()).toHaveLength(1)
  })

  it('a reply whose answer is lost is looked up in the thread and not posted again', async () => {
    await opened()
    slack.faults.push({ method: 'chat.postMessage', fault: { lostAnswer: 'hang' } })
    await send('pull_request_review', review('approved', 1, 'carol'))
    expect(await service!.settle(20_000)).toBe(true)
    expect(replies()).toEqual([':white_check_mark: carol approved'])
    expect(replyCalls()).toHaveLength(1)
    expect(slack.count('conversations.replies')).toBe(1)
    expect(service!.entries().some((e) => e.msg === 'slack thread reply found in the thread; adopting it instead of replying again')).toBe(true)
    expect(pendingDeliveries(dir.path)).toBe(0)
  })

  it('a reply whose connection resets before it is carried out is posted again after the lookup finds nothing', async () => {
    await opened()
    slack.faults.push({ method: 'chat.postMessage', fault: { reset: true } })
    await send('pull_request_review', review('approved', 1, 'carol'))
    expect(await service!.settle(20_000)).toBe(true)
    expect(replies()).toEqual([':white_check_mark: carol approved'])
    expect(replyCalls()).toHaveLength(2)
    expect(slack.count('conversations.replies')).toBe(1)
  })

  it('is off by default, and a mapping tier can turn it on or off for its repositories', async () => {
    config({ slack: {} })
    await opened()
    await send('pull_request_review', review('approved', 1, 'carol'))
    expect(await service!.settle(10_000)).toBe(true)
    expect(replyCalls()).toHaveLength(0)
    await service!.stop()
    service = undefined

    config({ slack: {}, mappings: { Codertocat: { '*': { channel: CHANNEL, slack: { thread_updates: true } } } } })
    await opened(2)
    await send('pull_request_review', review('approved', 2, 'carol'))
    expect(await service!.settle(10_000)).toBe(true)
    expect(replyCalls()).toHaveLength(1)
  })

  it('a reply Slack refuses for good is logged and dropped; the delivery is still applied', async () => {
    await opened()
    slack.faults.push({ method: 'chat.postMessage', fault: { error: 'restricted_action' } })
    await send('pull_request_review', review('approved', 1, 'carol'))
    expect(await service!.settle(10_000)).toBe(true)
    expect(replies()).toEqual([])
    expect(service!.entries().find((e) => e.msg === 'slack rejected the thread reply; dropping it')).toMatchObject({ level: 'error' })
    expect(pendingDeliveries(dir.path)).toBe(0)
    expect(message().reactions.has('white_check_mark')).toBe(true)
  })
})

describe('thread updates on Bitbucket', () => {
  const BOB = '557058:0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e'
  it('replies for approvals, their withdrawal and the merge, from Bitbucket payloads', async () => {
    await service?.stop()
    writeConfig(dir.path, {
      git_provider: 'bitbucket', slack: { thread_updates: true }, users: { [BOB]: 'U0BOB0001' }, mappings: { acme: { '*': { channel: CHANNEL } } },
    })
    service = await startPrherald(dir.path, testEnv(dir.path, 'bitbucket', { SLACK_API_URL: slack.url }))
    const sendBb = async (event: string, payload: Record<string, any>) => {
      payload.pullrequest.author.account_id = BOB
      expect((await deliver(service!.url, 'bitbucket', { event, payload })).status).toBe(200)
      expect(await service!.settle(10_000)).toBe(true)
    }
    await sendBb('pullrequest:created', bitbucketPayload('pullrequest:created', { id: 4 }))
    await sendBb('pullrequest:approved', bitbucketPayload('pullrequest:approved', { id: 4, actor: 'carol' }))
    await sendBb('pullrequest:unapproved', bitbucketPayload('pullrequest:unapproved', { id: 4, actor: 'carol' }))
    await sendBb('pullrequest:changes_request_created', bitbucketPayload('pullrequest:changes_request_created', { id: 4, actor: 'dave' }))
    await sendBb('pullrequest:fulfilled', bitbucketPayload('pullrequest:fulfilled', { id: 4, actor: 'erin', state: 'MERGED' }))
    expect(replies()).toEqual([
      ':white_check_mark: carol approved', ':leftwards_arrow_with_hook: carol removed their approval',
      ':exclamation: dave requested changes · <@U0BOB0001>', // keyed by bob's account id, as users: is on Bitbucket
      ':twisted_rightwards_arrows: merged by erin',
    ])
  })
})
