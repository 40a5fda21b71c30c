import { describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { FAKE_SLACK_LIMITS, startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { bitbucketPayload } from './bitbucket-payloads.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Issue 11.7 end to end: titles and names far beyond what Slack accepts still post, and edit, one message.
 * The fake Slack refuses blocks over 3000 characters (invalid_blocks) and text over 40,000 (msg_too_long).
 */
const CHANNEL = 'C0000000017'
const HUGE = '&<> 👩‍👩‍👧‍👦 é '.repeat(10_000) // 100k+ UTF-16 units, expanding when escaped, graphemes of every kind
const OTHER = 'Rename '.repeat(15_000)

const h = usePrherald()

type Json = Record<string, any>

async function start(provider: Provider): Promise<void> {
  const mappings: Record<string, Record<string, unknown>> = provider === 'github'
    ? { Codertocat: { 'Hello-World': { channel: CHANNEL, mentions: ['<!here>'] } } }
    : { acme: { api: { channel: CHANNEL, mentions: ['<!here>'] } } }
  writeConfig(h.dir.path, { git_provider: provider, mappings })
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url }))
}

async function send(provider: Provider, event: string, payload: Json): Promise<void> {
  const res = await deliver(h.service!.url, provider, { event, payload })
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
}

function expectOneMessageWithinLimits(): void {
  const messages = h.slack.messagesIn(CHANNEL)
  expect(messages).toHaveLength(1)
  const [message] = messages
  expect(message!.text.length).toBeLessThanOrEqual(FAKE_SLACK_LIMITS.messageText)
  const texts = (message!.blocks as Array<{ text?: { text: string }; elements?: Array<{ text: string }> }>)
    .flatMap((b) => (b.text ? [b.text.text] : (b.elements ?? []).map((e) => e.text)))
  expect(texts).toHaveLength(3)
  for (const text of texts) expect(text.length).toBeLessThanOrEqual(FAKE_SLACK_LIMITS.blockText)
  expect(texts[0]).toMatch(/^<!here> <https:\/\/\S+\|PR #\d+: .+…>$/)
  expect(h.service!.entries().filter((e) => e.level === 'error')).toEqual([])
}

describe('titles and names beyond Slack sizes', () => {
  it('GitHub: a 100k title and a long login post one message, and a 100k retitle updates it', async () => {
    await start('github')
    const opened = pullRequest('opened', 41, { title: HUGE })
    opened.pull_request.user.login = 'l'.repeat(5_000)
    await send('github', 'pull_request', opened)
    expectOneMessageWithinLimits()

    await send('github', 'pull_request', pullRequest('edited', 41, { title: OTHER }))
    expectOneMessageWithinLimits()
    expect(h.slack.messagesIn(CHANNEL)[0]!.updates).toBe(1)
    expect(h.slack.messagesIn(CHANNEL)[0]!.text).toMatch(/^PR #41: Rename Rename .*…/)
  })

  it('Bitbucket: a 100k title and a long display name post one message, and an updated title edits it', async () => {
    await start('bitbucket')
    const created = bitbucketPayload('pullrequest:created', { id: 42, title: HUGE })
    ;(created.pullrequest as Json).author = { display_name: 'Dana & <Co> '.repeat(2_000), type: 'user' }
    await send('bitbucket', 'pullrequest:created', created)
    expectOneMessageWithinLimits()

    await send('bitbucket', 'pullrequest:updated', bitbucketPayload('pullrequest:updated', { id: 42, title: OTHER }))
    expectOneMessageWithinLimits()
    expect(h.slack.messagesIn(CHANNEL)[0]!.updates).toBe(1)
  })
})
