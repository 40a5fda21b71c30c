import { beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack, type SlackMessageState } from '../helpers/fake-slack.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import {
  clickPayload, clickStartReview, reviewButton, sendInteraction, signedInteraction, TEST_SLACK_SIGNING_SECRET,
} from '../helpers/slack-interaction.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { bitbucketPayload } from './bitbucket-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const CHANNEL = 'C0000000001'
const ALICE = 'U0000ALICE'
const BOB = 'U00000BOB0'
const h = usePrherald()

const writeTestConfig = (extra: Record<string, unknown> = {}) =>
  writeConfig(h.dir.path, { git_provider: 'github', server: { shutdown_timeout_seconds: 1 }, mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } }, ...extra })
const env = (secret: string | null = TEST_SLACK_SIGNING_SECRET) =>
  h.env({ ...(secret === null ? {} : { SLACK_SIGNING_SECRET: secret }) })

beforeEach(async () => {
  writeTestConfig()
})

async function send(event: string, payload: unknown): Promise<void> {
  const res = await deliver(h.service!.url, 'github', { event, payload })
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
}

async function click(user: string, options: Parameters<typeof clickStartReview>[3] = {}): Promise<Response> {
  const res = await clickStartReview(h.service!.url, only(), user, options)
  expect(await h.service!.settle(10_000)).toBe(true)
  return res
}

const only = (): SlackMessageState => {
  const messages = h.slack.messagesIn(CHANNEL)
  expect(messages).toHaveLength(1)
  return messages[0]!
}
const blocksText = () => JSON.stringify(only().blocks)
/** The ":eyes: … reviewing" line, if the message has one. */
const reviewingLine = () => JSON.stringify(only().blocks).match(/:eyes: [^"]* reviewing/)?.[0]
const rejected = () => h.service!.entries().filter((e) => e.msg === 'rejected slack interaction')

describe('"Start review" with SLACK_SIGNING_SECRET set', () => {
  beforeEach(async () => {
    await h.start(env())
    await send('pull_request', pullRequest('opened', 7))
  })

  it('an open pull request\'s message carries the button: it opens the pull request and names it', () => {
    const button = reviewButton(only())
    expect(button).toMatchObject({
      action_id: 'prherald_start_review', value: 'github:Codertocat/Hello-World#7', url: 'https://github.com/Codertocat/Hello-World/pull/7',
    })
  })

  it('a correctly signed click adds ":eyes: @you reviewing" through an update; a second click by the same person takes it back', async () => {
    const res = await click(ALICE)
    expect(res.status).toBe(200)
    expect(h.slack.count('chat.update')).toBe(1)
    expect(blocksText()).toContain(`:eyes: <@${ALICE}> reviewing`)
    expect(h.slack.count('chat.postMessage')).toBe(1)

    expect((await click(ALICE)).status).toBe(200)
    expect(h.slack.count('chat.update')).toBe(2)
    expect(blocksText()).not.toContain('reviewing')
    expect(reviewButton(only())).toBeDefined()
  })

  it('each person is shown once, in the order they clicked; one taking theirs back leaves the other', async () => {
    await click(ALICE)
    await click(BOB)
    expect(blocksText()).toContain(`:eyes: <@${ALICE}>, <@${BOB}> reviewing`)
    await click(ALICE)
    expect(blocksText()).toContain(`:eyes: <@${BOB}> reviewing`)
    expect(blocksText()).not.toContain(ALICE)
  })

  it('an incorrectly signed click is refused with 401 and changes nothing', async () => {
    const res = await click(ALICE, { secret: 'not-the-signing-secret' })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ error: 'bad_signature' })
    expect(h.slack.count('chat.update')).toBe(0)
    expect(rejected()).toEqual([expect.objectContaining({ reason: 'bad_signature', status: 401 })])
    // Neither the signature nor the payload reaches the log.
    expect(h.service!.logs.join('\n')).not.toMatch(/v0=[0-9a-f]{64}|block_actions|U0000ALICE/)
  })

  it('a click without a signature is refused with 401', async () => {
    const res = await click(ALICE, { headers: { 'x-slack-signature': undefined } })
    expect(res.status).toBe(401)
    expect(h.slack.count('chat.update')).toBe(0)
  })

  it('a correctly signed click with a stale timestamp (over five minutes) is refused with 401 and its own reason', async () => {
    const res = await click(ALICE, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ error: 'stale_timestamp' })
    expect(h.slack.count('chat.update')).toBe(0)
    expect(rejected()).toEqual([expect.objectContaining({ reason: 'stale_timestamp', status: 401 })])
  })

  it('a body over the limit is refused with 413 before it is verified', async () => {
    const payload = clickPayload({ user: ALICE, value: 'github:Codertocat/Hello-World#7' })
    const { headers } = signedInteraction(payload)
    const res = await fetch(`${h.service!.url}/webhook/slack/interactions`, { method: 'POST', headers, body: 'payload='.padEnd(1024 * 1024 + 10, 'x') })
    expect(res.status).toBe(413)
  })

  it('a well-signed click for a pull request prherald holds no message of is answered 200, logged, and changes nothing', async () => {
    const res = await sendInteraction(h.service!.url, clickPayload({ user: ALICE, value: 'github:Codertocat/Hello-World#999' }))
    expect(res.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(h.slack.count('chat.update')).toBe(0)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({
      msg: 'start review click for an unknown pull request', repository: 'Codertocat/Hello-World', pr: 999,
    }))
    expect(pendingDeliveries(h.dir.path)).toBe(0)
  })

  it('an approval by a reviewer users: does not map clears every marker; the status line shows who approved', async () => {
    await click(ALICE)
    await click(BOB)
    await send('pull_request_review', review('approved', 7, 'carol'))
    expect(blocksText()).not.toContain('reviewing')
    expect(only().text).toContain('Approved by carol')
  })

  it('a comment leaves the markers: only a verdict (approval, change request) ends a review', async () => {
    await click(ALICE)
    await send('pull_request_review', review('commented', 7, 'carol'))
    expect(blocksText()).toContain(`:eyes: <@${ALICE}> reviewing`)
  })

  it('once the pull request is merged, the button and the markers are gone and a late click changes nothing', async () => {
    await click(ALICE)
    const button = reviewButton(only())!
    await send('pull_request', pullRequest('closed', 7, { merged: true }))
    expect(reviewButton(only())).toBeUndefined()
    expect(blocksText()).not.toContain('reviewing')
    const updates = h.slack.count('chat.update')
    // A client that had not redrawn the message yet still shows the button.
    const res = await sendInteraction(h.service!.url, clickPayload({ user: BOB, value: button.value, channel: only().channel, messageTs: only().ts }))
    expect(res.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(h.slack.count('chat.update')).toBe(updates)
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'ignored webhook event', reason: 'pull_request_ended', event: 'review_click' }))
  })

  // Issue 23.8: a signed click counts only from the token's workspace and app, and on the pull request's own message.
  it.each([
    ['another workspace', { team: { id: 'T0OTHER01', domain: 'other' } }, 'other_workspace'],
    ['another app', { api_app_id: 'A0OTHERAPP' }, 'other_app'],
  ] as const)('a click from %s changes nothing and is logged', async (_, change, reason) => {
    const message = only()
    const button = reviewButton(message)!
    const res = await sendInteraction(h.service!.url, { ...clickPayload({ user: BOB, value: button.value, channel: message.channel, messageTs: message.ts }), ...change })
    expect(res.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(blocksText()).not.toContain('reviewing')
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'rejected slack interaction', reason }))
  })

  it('a click naming the pull request from another channel or message changes nothing', async () => {
    const message = only()
    const button = reviewButton(message)!
    for (const where of [{ channel: 'C0OTHERCH1', messageTs: message.ts }, { channel: message.channel, messageTs: '1700000000.999999' }]) {
      const res = await sendInteraction(h.service!.url, clickPayload({ user: BOB, value: button.value, ...where }))
      expect(res.status).toBe(200)
    }
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(blocksText()).not.toContain('reviewing')
    expect(h.service!.entries().filter((e) => e.msg === 'start review click on another message')).toHaveLength(2)
  })
})

describe('"Start review" with users: mapping reviewers to Slack users', () => {
  it('GitHub: an approval by a reviewer users: maps clears only that person\'s marker', async () => {
    writeTestConfig({ users: { Carol: BOB } })
    await h.start(env())
    await send('pull_request', pullRequest('opened', 21))
    await click(ALICE)
    await click(BOB)
    await send('pull_request_review', review('approved', 21, 'carol'))
    expect(reviewingLine()).toBe(`:eyes: <@${ALICE}> reviewing`)
    // users: also shows the mapped reviewer as the Slack user in the status line.
    expect(blocksText()).toContain(`Approved by <@${BOB}>`)
  })

  it('GitHub: a change request by a mapped person who had not clicked leaves the others\' markers', async () => {
    writeTestConfig({ users: { carol: 'U000CAROL' } })
    await h.start(env())
    await send('pull_request', pullRequest('opened', 22))
    await click(ALICE)
    await send('pull_request_review', review('changes_requested', 22, 'carol'))
    expect(blocksText()).toContain(`:eyes: <@${ALICE}> reviewing`)
  })

  it('Bitbucket: the reviewer is matched by account id', async () => {
    const CAROL_ACCOUNT = '557058:ca701000-0000-4000-8000-000000000001'
    writeConfig(h.dir.path, {
      git_provider: 'bitbucket', users: { [CAROL_ACCOUNT]: BOB }, mappings: { acme: { api: { channel: CHANNEL } } },
    })
    await h.start(h.env({ SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET }, 'bitbucket'))
    const sendBitbucket = async (eventKey: string, actor: string) => {
      const payload = bitbucketPayload(eventKey, { id: 23, actor })
      // The account id users: keys Bitbucket people by (the approval's user is the same object).
      if (actor === 'carol') (payload.actor as Record<string, unknown>).account_id = CAROL_ACCOUNT
      const res = await deliver(h.service!.url, 'bitbucket', { event: eventKey, payload })
      expect(res.status).toBe(200)
      expect(await h.service!.settle(10_000)).toBe(true)
    }
    await sendBitbucket('pullrequest:created', 'bob')
    expect(reviewButton(only())).toMatchObject({ value: 'bitbucket:acme/api#23', url: 'https://bitbucket.org/acme/api/pull-requests/23' })
    await click(ALICE)
    await click(BOB)
    await sendBitbucket('pullrequest:approved', 'carol')
    expect(reviewingLine()).toBe(`:eyes: <@${ALICE}> reviewing`)
  })
})

describe('"Start review" and durability', () => {
  it('a click answered 200 is stored before it is applied: a shutdown that cuts it off replays it at the next start', async () => {
    await h.start(env())
    await send('pull_request', pullRequest('opened', 8))
    for (let i = 0; i < 10_000; i++) h.slack.faults.push({ method: 'chat.update', fault: { status: 503 } })
    expect((await clickStartReview(h.service!.url, only(), ALICE)).status).toBe(200)
    await waitFor('the update to be failing', () => h.slack.count('chat.update') >= 2)
    expect(await h.stop()).toEqual({ drained: false })
    expect(pendingDeliveries(h.dir.path)).toBe(1)

    h.slack.faults.length = 0
    await h.start(env())
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(blocksText()).toContain(`:eyes: <@${ALICE}> reviewing`)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
  })
})

describe('without SLACK_SIGNING_SECRET', () => {
  it('messages have no button and the interactions route does not exist (404)', async () => {
    await h.start(env(null))
    await send('pull_request', pullRequest('opened', 9))
    expect(reviewButton(only())).toBeUndefined()
    const res = await sendInteraction(h.service!.url, clickPayload({ user: ALICE, value: 'github:Codertocat/Hello-World#9' }))
    expect(res.status).toBe(404)
  })
})
