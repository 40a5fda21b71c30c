import { beforeEach, describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const CHANNEL = 'C0000000001'
const OTHER = 'C0000000002'
const h = usePrherald({
  slack: { anyChannel: true },
  config: {
    server: { log_format: 'json' },
    mappings: { Codertocat: { '*': { channel: CHANNEL } }, Other: { '*': { channel: OTHER } } },
  },
})

beforeEach(async () => {
  // the spawned server checks the mapped channels at start-up
})

async function send(event: string, payload: unknown): Promise<void> {
  const res = await deliver(h.service!.url, 'github', { event, payload })
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
}

describe('durability', () => {
  it('after a restart on the same database, later events update the stored message', async () => {
    await h.start(h.env())
    await send('pull_request', pullRequest('opened', 41))
    await h.stop()
    await h.start(h.env())
    await send('pull_request', pullRequest('closed', 41, { merged: true }))
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect(h.slack.count('chat.update')).toBe(1)
    expect(h.slack.messagesIn(CHANNEL)[0]?.reactions.has('twisted_rightwards_arrows')).toBe(true)
  })

  it('with the database lost, an already announced PR gets a fresh message', async () => {
    await h.start(h.env())
    await send('pull_request', pullRequest('opened', 42))
    await h.stop()
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(h.dir.path, `prherald.db${suffix}`), { force: true })
    await h.start(h.env())
    await send('pull_request_review', review('approved', 42, 'carol'))
    expect(h.slack.count('chat.postMessage')).toBe(2)
  })

  it('retries Slack 429 (honouring Retry-After) and 503, and the message still appears once', async () => {
    h.slack.faults.push(
      { method: 'chat.postMessage', fault: { status: 429, headers: { 'retry-after': '1' } } },
      { method: 'chat.postMessage', fault: { status: 503 } },
      { method: 'reactions.add', fault: { status: 503 } },
    )
    await h.start(h.env())
    await send('pull_request_review', review('approved', 43, 'carol'))
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(h.slack.count('chat.postMessage')).toBe(3)
    expect(h.slack.messagesIn(CHANNEL)[0]?.reactions.has('white_check_mark')).toBe(true)
  })

  it('keeps retrying a Slack outage in the mailbox until it ends, then posts once', async () => {
    for (let i = 0; i < 8; i++) h.slack.faults.push({ method: 'chat.postMessage', fault: { status: 500 } })
    // A 500 may come after the post was made, so each retry waits a client timeout and searches the channel first.
    await h.start(h.env(), { slackTimeoutMs: 250 })
    await send('pull_request', pullRequest('opened', 44))
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(h.slack.count('chat.postMessage')).toBe(9)
    expect(h.slack.count('conversations.history')).toBe(8)
    expect(h.service!.entries().filter((e) => e.msg === 'slack post outcome unknown; looking for it in the channel before posting again')).toHaveLength(8)
  })

  it('channel_not_found is logged with the fix and does not hold up other pull requests', async () => {
    h.slack.channelErrors.set(OTHER, 'channel_not_found')
    await h.start(h.env())
    const other = pullRequest('opened', 45) as { repository: { owner: { login: string } } }
    other.repository.owner.login = 'Other'
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: other })
    await send('pull_request', pullRequest('opened', 46))
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    const failure = h.service!.entries().find((e) => e.slack_error === 'Slack: channel_not_found')
    expect(failure).toMatchObject({ channel: OTHER, repository: 'Other/Hello-World', pr: 45, fix: expect.stringContaining('channel ID') })
  })

  it('a deleted Slack message is re-posted on the next update', async () => {
    await h.start(h.env())
    await send('pull_request', pullRequest('opened', 47))
    h.slack.messages.clear()
    await send('pull_request_review', review('approved', 47, 'carol'))
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(h.slack.messagesIn(CHANNEL)[0]?.reactions.has('white_check_mark')).toBe(true)
  })

  it('SIGKILL after acknowledging deliveries: a restart applies every acknowledged one, once', async () => {
    // Slack is down (503) while the deliveries arrive, so every acknowledged one is still pending at the kill.
    for (let i = 0; i < 1000; i++) h.slack.faults.push({ method: 'chat.postMessage', fault: { status: 503 } })
    await h.spawn()
    const numbers = [51, 52, 53, 54, 55]
    const responses = await Promise.all(numbers.flatMap((n) => [
      deliver(h.server!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', n) }),
      deliver(h.server!.url, 'github', { event: 'pull_request_review', payload: review('approved', n, 'carol') }),
    ]))
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200))
    h.server!.child.kill('SIGKILL')
    expect(await h.server!.exited).toEqual({ code: null, signal: 'SIGKILL' })
    expect(h.slack.messages.size).toBe(0)

    h.slack.faults.length = 0
    await h.spawn()
    await waitFor('every PR announced and approved', () =>
      numbers.every((n) => [...h.slack.messages.values()].some((m) => m.text.includes(`#${n}:`) && m.reactions.has('white_check_mark'))), 20_000)
    expect(h.slack.messages.size).toBe(numbers.length)
    expect(h.server!.entries()).toContainEqual(expect.objectContaining({ msg: 'replaying pending deliveries', count: 10 }))
  })
})
