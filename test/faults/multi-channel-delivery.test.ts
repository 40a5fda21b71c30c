import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { conversationComment, review } from '../helpers/github-payloads.ts'
import { messagesOf, statusOf } from './pr-messages.ts'

/**
 * A path-routed pull request has one message per channel and one lifecycle. A delivery that reached one
 * channel but not the other (cut off, or refused by Slack for good) must not leave the channels disagreeing.
 */
const REPO = 'C0000000REPO'
const BILLING = 'C00000BILLING'
const AUTH = 'C000000AUTH'

let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  github = await startFakeGithub()
  github.pullFiles.set('Codertocat/Hello-World#71', ['services/billing/invoice.ts', 'services/auth/login.ts'])
})

/** Messages are posted in the order the rules are written, so `first` is the channel whose row is oldest. */
function configure(first: string): void {
  const rules: Array<[string, { channel: string }]> = [['services/billing/', { channel: BILLING }], ['services/auth/', { channel: AUTH }]]
  const paths = Object.fromEntries(rules.sort(([, a], [, b]) => Number(b.channel === first) - Number(a.channel === first)))
  writeConfig(dir.path, {
    git_provider: 'github',
    server: { shutdown_timeout_seconds: 1 },
    mappings: { Codertocat: { 'Hello-World': { channel: REPO, paths } } },
  })
}
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  await github.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_test' })
const inChannel = (channel: string) => messagesOf(slack, 'Codertocat', 71).filter((m) => m.channel === channel)

describe('a pull request with messages in two channels', () => {
  it('a replay after an interruption finishes the channel the first run did not reach', async () => {
    // The billing message gets its reaction; the auth one keeps being refused until the shutdown window ends.
    configure(BILLING)
    for (let i = 0; i < 10_000; i++) slack.faults.push({ method: 'reactions.add', channel: AUTH, fault: { status: 503 } })
    service = await startPrherald(dir.path, env())
    expect((await deliver(service.url, 'github', { event: 'pull_request_review', payload: review('approved', 71, 'carol') })).status).toBe(200)
    await waitFor('both posts and a failing auth reaction', () =>
      slack.count('chat.postMessage') === 2 && slack.calls.filter((c) => c.method === 'reactions.add' && c.body.channel === AUTH).length >= 2)
    expect(await service.stop()).toEqual({ drained: false })

    slack.faults.length = 0
    service = await startPrherald(dir.path, env())
    expect(await service.settle(10_000)).toBe(true)
    for (const channel of [BILLING, AUTH]) {
      const messages = inChannel(channel)
      expect(messages).toHaveLength(1)
      expect(statusOf(messages[0]!)).toBe('Approved by carol')
      expect([...messages[0]!.reactions]).toEqual(['white_check_mark'])
    }
    expect(slack.count('chat.postMessage')).toBe(2)
    expect(inChannel(REPO)).toHaveLength(0)
  })

  it('a change Slack refused in one channel does not leave that channel an older state for the next delivery', async () => {
    // The refusing channel's row is the oldest, the one a naive reader would restore the lifecycle from.
    configure(AUTH)
    service = await startPrherald(dir.path, env())
    const send = async (event: string, payload: unknown) => {
      expect((await deliver(service!.url, 'github', { event, payload })).status).toBe(200)
      expect(await service!.settle(10_000)).toBe(true)
    }
    await send('pull_request_review', review('commented', 71, 'dave'))
    slack.channelErrors.set(AUTH, 'is_archived')
    await send('pull_request_review', review('approved', 71, 'carol'))
    expect(statusOf(inChannel(BILLING)[0]!)).toBe('Approved by carol · 1 comment')
    expect(statusOf(inChannel(AUTH)[0]!)).toBe('1 comment')

    slack.channelErrors.delete(AUTH)
    await send('issue_comment', conversationComment(71, 'erin'))
    for (const channel of [BILLING, AUTH]) expect(statusOf(inChannel(channel)[0]!)).toBe('Approved by carol · 2 comments')
  })
})
