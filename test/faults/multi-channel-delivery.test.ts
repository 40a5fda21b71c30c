import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { conversationComment, review } from '../helpers/github-payloads.ts'
import { messagesOf, statusOf } from './pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * A path-routed pull request has one message per channel and one lifecycle. A delivery that reached one
 * channel but not the other (cut off, or refused by Slack for good) must not leave the channels disagreeing.
 */
const REPO = 'C0000000REPO'
const BILLING = 'C00000BILLING'
const AUTH = 'C000000AUTH'

const h = usePrherald({ slack: { anyChannel: true } })
let github: FakeGithub

beforeEach(async () => {
  github = await startFakeGithub()
  github.pullFiles.set('Codertocat/Hello-World#71', ['services/billing/invoice.ts', 'services/auth/login.ts'])
})

/** Messages are posted in the order the rules are written, so `first` is the channel whose row is oldest. */
function configure(first: string): void {
  const rules: Array<[string, { channel: string }]> = [['services/billing/', { channel: BILLING }], ['services/auth/', { channel: AUTH }]]
  const paths = Object.fromEntries(rules.sort(([, a], [, b]) => Number(b.channel === first) - Number(a.channel === first)))
  writeConfig(h.dir.path, {
    git_provider: 'github',
    server: { shutdown_timeout_seconds: 1 },
    mappings: { Codertocat: { 'Hello-World': { channel: REPO, paths } } },
  })
}
afterEach(async () => {
  await github.close()
})

const env = () => h.env({ GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_test' })
const inChannel = (channel: string) => messagesOf(h.slack, 'Codertocat', 71).filter((m) => m.channel === channel)

describe('a pull request with messages in two channels', () => {
  it('a replay after an interruption finishes the channel the first run did not reach', async () => {
    // The billing message gets its reaction; the auth one keeps being refused until the shutdown window ends.
    configure(BILLING)
    for (let i = 0; i < 10_000; i++) h.slack.faults.push({ method: 'reactions.add', channel: AUTH, fault: { status: 503 } })
    await h.start(env())
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request_review', payload: review('approved', 71, 'carol') })).status).toBe(200)
    await waitFor('both posts and a failing auth reaction', () =>
      h.slack.count('chat.postMessage') === 2 && h.slack.calls.filter((c) => c.method === 'reactions.add' && c.body.channel === AUTH).length >= 2)
    expect(await h.stop()).toEqual({ drained: false })

    h.slack.faults.length = 0
    await h.start(env())
    expect(await h.service!.settle(10_000)).toBe(true)
    for (const channel of [BILLING, AUTH]) {
      const messages = inChannel(channel)
      expect(messages).toHaveLength(1)
      expect(statusOf(messages[0]!)).toBe('Approved by carol')
      expect([...messages[0]!.reactions]).toEqual(['white_check_mark'])
    }
    expect(h.slack.count('chat.postMessage')).toBe(2)
    expect(inChannel(REPO)).toHaveLength(0)
  })

  it('a change Slack refused in one channel does not leave that channel an older state for the next delivery', async () => {
    // The refusing channel's row is the oldest, the one a naive reader would restore the lifecycle from.
    configure(AUTH)
    await h.start(env())
    const send = async (event: string, payload: unknown) => {
      expect((await deliver(h.service!.url, 'github', { event, payload })).status).toBe(200)
      expect(await h.service!.settle(10_000)).toBe(true)
    }
    await send('pull_request_review', review('commented', 71, 'dave'))
    h.slack.channelErrors.set(AUTH, 'is_archived')
    await send('pull_request_review', review('approved', 71, 'carol'))
    expect(statusOf(inChannel(BILLING)[0]!)).toBe('Approved by carol · 1 comment')
    expect(statusOf(inChannel(AUTH)[0]!)).toBe('1 comment')

    h.slack.channelErrors.delete(AUTH)
    await send('issue_comment', conversationComment(71, 'erin'))
    for (const channel of [BILLING, AUTH]) expect(statusOf(inChannel(channel)[0]!)).toBe('Approved by carol · 2 comments')
  })
})
