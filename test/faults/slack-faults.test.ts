import { afterEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack, type SlackFault } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor, type TestService } from '../helpers/start-prherald.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { expectOneCorrectMessage, isComplete, messagesOf, prDeliveries, statusOf, writeCalls } from './pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Slack misbehaving on one channel (FAULTY, where the `Other` organisation's pull requests go) while another
 * (HEALTHY, `Codertocat`) works. Every pull request gets opened, approved and commented; each must end with
 * one message showing exactly that, and the healthy channel must not wait for the faulty one. "Held" faults
 * are queued in their thousands and lifted by the test, so "the faulty channel was still failing when the
 * healthy one finished" is a fact, not a race.
 */
const HEALTHY = 'C0000000001'
const FAULTY = 'C0000000002'
const HEALTHY_PRS = [201, 202, 203]
const FAULTY_PRS = [301, 302, 303]
const HELD = 10_000

const h = usePrherald({
  slack: { anyChannel: true },
  config: {
    server: { shutdown_timeout_seconds: 2 },
    mappings: { Codertocat: { '*': { channel: HEALTHY } }, Other: { '*': { channel: FAULTY } } },
  },
})

afterEach(async () => {
  h.slack.faults.length = 0
})

/** Delivers each PR's events in order (a PR's events one after another, PRs side by side); all must be 200. */
async function deliverPrs(owner: string, numbers: number[], pick: (event: string) => boolean = () => true): Promise<void> {
  await Promise.all(numbers.map(async (n) => {
    for (const d of prDeliveries(owner, n).filter((d) => pick(d.event))) {
      const res = await deliver(h.service!.url, 'github', d)
      expect(res.status, `${d.deliveryId}`).toBe(200)
    }
  }))
}

function holdFaulty(method: string, fault: (i: number) => SlackFault): void {
  for (let i = 0; i < HELD; i++) h.slack.faults.push({ method, channel: FAULTY, fault: fault(i) })
}

function liftFaulty(method?: string): void {
  const keep = h.slack.faults.filter((f) => f.channel !== FAULTY || (method !== undefined && f.method !== method))
  h.slack.faults.splice(0, h.slack.faults.length, ...keep)
}

const faultyCalls = (method: string) => h.slack.calls.filter((c) => c.method === method && c.body.channel === FAULTY).length

const faultyHeld = (method: string) => h.slack.faults.filter((f) => f.channel === FAULTY && f.method === method).length

const logged = (msg: string) => h.service!.entries().filter((e) => e.msg === msg)

describe('Slack answering 5xx or resetting the connection on one channel', () => {
  const cases: Array<[string, (i: number) => SlackFault]> = [
    ['500 and 503', (i) => ({ status: i % 2 === 0 ? 500 : 503 })],
    ['connection resets', () => ({ reset: true })],
  ]

  it.each(cases)('%s: the other channel is not held up, and every PR ends with one correct message', async (_name, fault) => {
    holdFaulty('chat.postMessage', fault)
    // Finite faults on the later calls too: consumed once the posts go through.
    for (let i = 0; i < 3; i++) {
      h.slack.faults.push({ method: 'chat.update', channel: FAULTY, fault: fault(i) })
      h.slack.faults.push({ method: 'reactions.add', channel: FAULTY, fault: fault(i + 1) })
    }
    await h.start(h.env())
    await deliverPrs('Codertocat', HEALTHY_PRS)
    await deliverPrs('Other', FAULTY_PRS)

    await waitFor('the healthy channel to be complete', () => HEALTHY_PRS.every((n) => isComplete(h.slack, 'Codertocat', n)), 15_000)
    for (const n of HEALTHY_PRS) expectOneCorrectMessage(h.slack, 'Codertocat', n, HEALTHY)
    // ... while the faulty channel was still failing: nothing posted there, and its posts still being refused.
    expect(h.slack.messagesIn(FAULTY)).toHaveLength(0)
    expect(faultyHeld('chat.postMessage')).toBeGreaterThan(0)
    // A 5xx or a reset may come after Slack posted, so a failed post is never retried blindly: the channel's
    // history is searched for it first, and only then is it posted again.
    await waitFor('a faulty post to be looked up and posted again', () => faultyCalls('chat.postMessage') > FAULTY_PRS.length, 15_000)
    expect(logged('slack post outcome unknown; looking for it in the channel before posting again').some((e) => e.channel === FAULTY)).toBe(true)

    liftFaulty('chat.postMessage')
    expect(await h.service!.settle(20_000)).toBe(true)
    expect(faultyCalls('chat.postMessage')).toBeLessThanOrEqual(FAULTY_PRS.length + faultyCalls('conversations.history'))
    for (const n of FAULTY_PRS) expectOneCorrectMessage(h.slack, 'Other', n, FAULTY)
    for (const n of HEALTHY_PRS) expectOneCorrectMessage(h.slack, 'Codertocat', n, HEALTHY)
    expect(h.slack.faults).toHaveLength(0) // every finite fault on update and reactions was met and survived
    expect(logged('delivery failed; it stays pending and is retried')).toHaveLength(0)
  })
})

describe('Slack answering slowly, past the client timeout', () => {
  const overrides = { slackTimeoutMs: 250 }
  const slow: SlackFault = { delayMs: 1000 }

  it('on chat.update and reactions.add: retried, not held up, and still one correct message per PR', async () => {
    await h.start(h.env(), overrides)
    await deliverPrs('Codertocat', HEALTHY_PRS, (e) => e === 'pull_request')
    await deliverPrs('Other', FAULTY_PRS, (e) => e === 'pull_request')
    expect(await h.service!.settle(10_000)).toBe(true)

    holdFaulty('chat.update', () => slow)
    holdFaulty('reactions.add', () => slow)
    await deliverPrs('Codertocat', HEALTHY_PRS, (e) => e === 'pull_request_review')
    await deliverPrs('Other', FAULTY_PRS, (e) => e === 'pull_request_review')
    await waitFor('the healthy approvals', () => HEALTHY_PRS.every((n) => messagesOf(h.slack, 'Codertocat', n)[0]?.reactions.has('white_check_mark')), 15_000)
    expect(faultyHeld('chat.update')).toBeGreaterThan(0)
    await waitFor('a timed-out call to be logged', () =>
      logged('slack client').some((e) => String(e.detail).includes('aborted due to timeout')))

    liftFaulty()
    expect(await h.service!.settle(20_000)).toBe(true)
    // The fake still answers the calls the client gave up on, late; wait until every update it received has landed,
    // so that none of those (identical) late updates can land after the next delivery's.
    const faultyUpdates = () => h.slack.calls.filter((c) => c.method === 'chat.update' && c.body.channel === FAULTY).length
    await waitFor('late updates to land', () => h.slack.messagesIn(FAULTY).reduce((sum, m) => sum + m.updates, 0) === faultyUpdates())

    await deliverPrs('Codertocat', HEALTHY_PRS, (e) => e === 'issue_comment')
    await deliverPrs('Other', FAULTY_PRS, (e) => e === 'issue_comment')
    expect(await h.service!.settle(10_000)).toBe(true)
    for (const n of HEALTHY_PRS) expectOneCorrectMessage(h.slack, 'Codertocat', n, HEALTHY)
    for (const n of FAULTY_PRS) expectOneCorrectMessage(h.slack, 'Other', n, FAULTY)
  })

  it('on chat.postMessage, carried out late: the post is found in the channel history, never posted twice', async () => {
    // The fake, like Slack, carries out a call whose answer the client stopped waiting for: here 200 ms after
    // the client gave up (500 ms), well within the pause prherald takes (one client timeout) before it looks.
    h.slack.faults.push({ method: 'chat.postMessage', channel: FAULTY, fault: { delayMs: 700 } })
    await h.start(h.env(), { slackTimeoutMs: 500 })
    await expectPostedOnce(h.service!)
    await waitFor('a timed-out call to be logged', () => logged('slack client').some((e) => String(e.detail).includes('aborted due to timeout')))
  })
})

describe('a post whose answer is lost after Slack carried it out', () => {
  it.each([['never answered (timeout)', 'hang'], ['connection reset', 'reset']] as const)(
    '%s: the marked post is found in the channel history and adopted; one message per PR', async (_name, lostAnswer) => {
      h.slack.faults.push({ method: 'chat.postMessage', channel: FAULTY, fault: { lostAnswer } })
      await h.start(h.env(), { slackTimeoutMs: 250 })
      await expectPostedOnce(h.service!)
      // The post carried its marker in Slack's message metadata.
      const [message] = messagesOf(h.slack, 'Other', 301)
      expect(message!.metadata).toEqual({ event_type: 'prherald_pull_request', event_payload: { pr: 'github:Other/Hello-World#301', delivery_id: 'Other-301-opened' } })
      expect(h.slack.calls.find((c) => c.method === 'conversations.history')?.body).toMatchObject({ channel: FAULTY, include_all_metadata: 'true' })
    })

  it('without the history scope: posts again as before, with one warning naming the scope and the fix', async () => {
    h.slack.scopes = h.slack.scopes.filter((s) => s !== 'channels:history')
    h.slack.faults.push(
      { method: 'chat.postMessage', channel: FAULTY, fault: { lostAnswer: 'reset' } },
      { method: 'chat.postMessage', channel: FAULTY, fault: { lostAnswer: 'reset' } },
    )
    await h.start(h.env(), { slackTimeoutMs: 250 })
    for (const n of [301, 302]) expect((await deliver(h.service!.url, 'github', prDeliveries('Other', n)[0]!)).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    for (const n of [301, 302]) expect(messagesOf(h.slack, 'Other', n)).toHaveLength(2) // today's behaviour: the lost post shows twice
    const warnings = logged('slack token cannot read channel history; posting again without looking (the message may show twice)')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: 'warn', scope: 'channels:history', fix: expect.stringContaining('add the channels:history bot scope') })
    expect(logged('delivery failed; it stays pending and is retried')).toHaveLength(0)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
  })
})

describe('a post answered 5xx', () => {
  it('is looked up after a backoff that starts at the retry base and doubles, not after a client timeout', async () => {
    h.slack.faults.push(
      { method: 'chat.postMessage', channel: FAULTY, fault: { status: 503 } },
      { method: 'chat.postMessage', channel: FAULTY, fault: { status: 503 } },
    )
    // The test's retry base is 20 ms and its client timeout 2 s: a pause of 2 s is the old wait for the answer.
    await h.start(h.env())
    expect((await deliver(h.service!.url, 'github', prDeliveries('Other', 301)[0]!)).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    const pauses = logged('slack post outcome unknown; looking for it in the channel before posting again').map((e) => e.delay_ms)
    expect(pauses).toEqual([20, 40])
    // Each re-post still came after a look at the channel's history.
    const order = h.slack.calls.filter((c) => c.body.channel === FAULTY).map((c) => c.method)
    expect(order).toEqual(['chat.postMessage', 'conversations.history', 'chat.postMessage', 'conversations.history', 'chat.postMessage'])
    expect(messagesOf(h.slack, 'Other', 301)).toHaveLength(1)
  })
})

/** PR 301 of the faulty channel, opened then approved: exactly one message, tracked, with the approval, and one post call that landed. */
async function expectPostedOnce(running: TestService): Promise<void> {
  const [opened, approved] = prDeliveries('Other', 301)
  expect((await deliver(running.url, 'github', opened!)).status).toBe(200)
  expect(await running.settle(10_000)).toBe(true)
  expect((await deliver(running.url, 'github', approved!)).status).toBe(200)
  expect(await running.settle(10_000)).toBe(true)

  const messages = messagesOf(h.slack, 'Other', 301)
  expect(messages).toHaveLength(1)
  expect(statusOf(messages[0]!)).toBe('Approved by carol')
  expect([...messages[0]!.reactions]).toEqual(['white_check_mark'])
  expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === FAULTY)).toHaveLength(1)
  expect(logged('slack message found in the channel history; adopting it instead of posting again')).toContainEqual(
    expect.objectContaining({ channel: FAULTY, pr: 301, ts: messages[0]!.ts }))
}

describe('Slack rate limiting (429)', () => {
  it('honours Retry-After, survives 429 without it and `ratelimited`, and every PR ends with one correct message', async () => {
    h.slack.faults.push(
      { method: 'chat.postMessage', channel: FAULTY, fault: { status: 429, headers: { 'retry-after': '1' } } },
      { method: 'chat.update', channel: FAULTY, fault: { status: 429, headers: { 'retry-after': '1' } } },
      { method: 'reactions.add', channel: FAULTY, fault: { status: 429 } },
      { method: 'chat.update', channel: FAULTY, fault: { error: 'ratelimited' } },
    )
    await h.start(h.env())
    await Promise.all([deliverPrs('Codertocat', HEALTHY_PRS), deliverPrs('Other', FAULTY_PRS)])
    expect(await h.service!.settle(30_000)).toBe(true)

    expect(h.slack.faults).toHaveLength(0)
    for (const n of HEALTHY_PRS) expectOneCorrectMessage(h.slack, 'Codertocat', n, HEALTHY)
    for (const n of FAULTY_PRS) expectOneCorrectMessage(h.slack, 'Other', n, FAULTY)
    // The pacer held what Slack refused for the Retry-After: the post's channel, and chat.update (a workspace budget).
    expect(logged('slack rate limit reached; holding these calls').map((e) => [e.call, e.channel, e.hold_ms])).toEqual([
      ['chat.postMessage', FAULTY, 1000], ['chat.update', FAULTY, 1000],
    ])
    expect(logged('slack call failed, retrying').some((e) => e.error === 'Slack: ratelimited')).toBe(true)
  })
})

describe('permanent Slack errors', () => {
  it('channel_not_found: one clear log line per refused change, no retries, nothing left pending, other PRs unaffected', async () => {
    await h.start(h.env())
    await deliverPrs('Codertocat', HEALTHY_PRS, (e) => e === 'pull_request')
    await deliverPrs('Other', FAULTY_PRS, (e) => e === 'pull_request')
    expect(await h.service!.settle(10_000)).toBe(true)

    h.slack.channelErrors.set(FAULTY, 'channel_not_found') // e.g. the channel was deleted
    const before = writeCalls(h.slack).length
    await deliverPrs('Codertocat', HEALTHY_PRS, (e) => e !== 'pull_request')
    await deliverPrs('Other', FAULTY_PRS, (e) => e !== 'pull_request')
    expect(await h.service!.settle(10_000)).toBe(true)

    for (const n of HEALTHY_PRS) expectOneCorrectMessage(h.slack, 'Codertocat', n, HEALTHY)
    for (const n of FAULTY_PRS) {
      const [message, ...more] = messagesOf(h.slack, 'Other', n)
      expect(more).toHaveLength(0)
      expect(statusOf(message!)).toBe('Open')
      expect(message!.reactions.size).toBe(0)
    }
    // Two deliveries per pull request; the mailbox's fold window may apply both as one batch (one change).
    const rejected = logged('slack rejected the change; dropping it for this channel')
    expect(rejected.length).toBeGreaterThanOrEqual(FAULTY_PRS.length)
    expect(rejected.length).toBeLessThanOrEqual(FAULTY_PRS.length * 2)
    for (const line of rejected) {
      expect(line).toMatchObject({ level: 'error', channel: FAULTY, repository: 'Other/Hello-World', slack_error: 'Slack: channel_not_found' })
      expect(String(line.fix)).toContain('check the channel ID in config.yaml')
      expect(FAULTY_PRS).toContain(line.pr)
    }
    // One chat.update per refused change (at most one per delivery) to the missing channel, each with its
    // line, and nothing else: no retry storm.
    const faultyCalls = writeCalls(h.slack).slice(before).filter((c) => c.body.channel === FAULTY)
    expect(faultyCalls.map((c) => c.method)).toEqual(Array(rejected.length).fill('chat.update'))
    await h.stop()
    expect(pendingDeliveries(h.dir.path)).toBe(0)

    // The channel comes back: the next delivery updates the same message; the PR was not forgotten. The
    // lifecycle moved on while Slack refused the channel, so the text shows the review and the comment too;
    // the reactions Slack refused then are not back-filled.
    h.slack.channelErrors.clear()
    await h.start(h.env())
    for (const n of FAULTY_PRS) {
      const merged = pullRequest('closed', n, { merged: true })
      merged.repository.owner.login = 'Other'
      expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: merged })).status).toBe(200)
    }
    expect(await h.service!.settle(10_000)).toBe(true)
    for (const n of FAULTY_PRS) {
      const messages = messagesOf(h.slack, 'Other', n)
      expect(messages).toHaveLength(1)
      expect(statusOf(messages[0]!)).toBe('Merged · Approved by carol · 1 comment')
      expect([...messages[0]!.reactions]).toEqual(['twisted_rightwards_arrows'])
    }
    expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === FAULTY)).toHaveLength(FAULTY_PRS.length)
  })

  it('not_in_channel on the first post loses the delivery, not the PR; a refused reaction loses only the reaction', async () => {
    h.slack.faults.push({ method: 'chat.postMessage', channel: FAULTY, fault: { error: 'not_in_channel' } })
    await h.start(h.env())
    const [opened, approved, commented] = prDeliveries('Other', 301)
    expect((await deliver(h.service!.url, 'github', opened!)).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(messagesOf(h.slack, 'Other', 301)).toHaveLength(0)
    expect(logged('slack rejected the change; dropping it for this channel')).toContainEqual(expect.objectContaining({
      pr: 301, channel: FAULTY, slack_error: 'Slack: not_in_channel', fix: expect.stringContaining('invite the bot'),
    }))

    // The bot is invited; the approval posts the PR. Slack refuses the reaction (an emoji it does not know).
    h.slack.faults.push({ method: 'reactions.add', channel: FAULTY, fault: { error: 'invalid_name' } })
    expect((await deliver(h.service!.url, 'github', approved!)).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(logged('slack rejected the change; dropping it for this channel')).toContainEqual(expect.objectContaining({
      pr: 301, slack_error: 'Slack: invalid_name',
    }))

    // The approval itself was recorded: the next delivery still shows it.
    expect((await deliver(h.service!.url, 'github', commented!)).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    const messages = messagesOf(h.slack, 'Other', 301)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toBe('Approved by carol · 1 comment')
    expect([...messages[0]!.reactions]).toEqual(['speech_balloon'])
  })
})
