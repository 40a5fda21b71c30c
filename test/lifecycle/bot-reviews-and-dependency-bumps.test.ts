import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { packageRoot } from '../../src/package-root.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { bitbucketPayload } from './bitbucket-payloads.ts'
import { pullRequest, review, type PullRequestFacts } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Issue 13's bot levers, end to end: `reviews.ignore_bot_reviews` and `reviews.dependency_bots`, each on and
 * off, on both hosts: real server, real SQLite, fake Slack, signed deliveries. GitHub deliveries are GitHub's
 * example payloads (Codertocat/Hello-World) with the author, labels and body changed.
 */
const TEAM = 'C0000000001'
const ALICE = '<@U0000ALICE>'

const h = usePrherald()

async function start(provider: Provider, config: Record<string, unknown> = {}): Promise<TestService> {
  const mappings = provider === 'github'
    ? { Codertocat: { 'Hello-World': { channel: TEAM, mentions: [ALICE] } } }
    : { acme: { api: { channel: TEAM, mentions: [ALICE] } } }
  writeConfig(h.dir.path, { git_provider: provider, mappings, ...config } as never)
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url }))
  return h.service!
}

interface Step { event: string; payload: unknown; deliveryId?: string }

async function send(provider: Provider, steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    const res = await deliver(h.service!.url, provider, step)
    expect(res.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  }
}

const ignoredAs = (reason: string) => h.service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === reason)
const headline = (channel = TEAM) => {
  const block = h.slack.messagesIn(channel)[0]!.blocks[0] as { text: { text: string } }
  return block.text.text
}
const fixture = (name: string) => readFileSync(join(packageRoot(), 'test/fixtures/dependency-bumps', `${name}.md`), 'utf8')

/** Per host: open a pull request by a person, then a bot's approval and comment, then a person's approval. */
const bot = {
  github: {
    open: { event: 'pull_request', payload: pullRequest('opened', 7) },
    approve: { event: 'pull_request_review', payload: review('approved', 7, 'review-helper[bot]', { bot: true }) },
    comment: { event: 'pull_request_review', payload: review('commented', 7, 'review-helper[bot]', { bot: true }) },
    human: { event: 'pull_request_review', payload: review('approved', 7, 'carol') },
  },
  bitbucket: {
    open: { event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id: 7 }) },
    approve: { event: 'pullrequest:approved', payload: bitbucketPayload('pullrequest:approved', { id: 7, actor: 'review-helper', actorType: 'app_user' }) },
    comment: { event: 'pullrequest:comment_created', payload: bitbucketPayload('pullrequest:comment_created', { id: 7, actor: 'review-helper', actorType: 'app_user' }) },
    human: { event: 'pullrequest:approved', payload: bitbucketPayload('pullrequest:approved', { id: 7, actor: 'carol' }) },
  },
} as const

describe.each(['github', 'bitbucket'] as const)('%s: reviews.ignore_bot_reviews', (provider) => {
  const steps = bot[provider]

  it('off (the default): a bot review gets the normal reaction plus the bot marker', async () => {
    await start(provider)
    await send(provider, [steps.open, steps.approve, steps.comment])
    expect([...h.slack.messagesIn(TEAM)[0]!.reactions].sort()).toEqual(['robot_face', 'speech_balloon', 'white_check_mark'])
    expect(h.slack.messagesIn(TEAM)[0]!.text).toContain('Approved by review-helper')
    expect(ignoredAs('bot_review')).toHaveLength(0)
  })

  it('on: bot reviews and comments change nothing, are logged as bot_review and are not recorded; a person\'s review still shows', async () => {
    await start(provider, { reviews: { ignore_bot_reviews: true } })
    await send(provider, [steps.open])
    const afterOpen = h.slack.calls.length
    await send(provider, [{ ...steps.approve, deliveryId: 'bot-approval-1' }, steps.comment])
    expect(h.slack.calls.length).toBe(afterOpen)
    expect(h.slack.messagesIn(TEAM)[0]!.reactions.size).toBe(0)
    expect(ignoredAs('bot_review')).toHaveLength(2)
    // Not recorded: the same delivery again is muted again, not recognised as a duplicate.
    await send(provider, [{ ...steps.approve, deliveryId: 'bot-approval-1' }])
    expect(ignoredAs('bot_review')).toHaveLength(3)
    expect(ignoredAs('duplicate_delivery')).toHaveLength(0)

    await send(provider, [steps.human])
    const message = h.slack.messagesIn(TEAM)[0]!
    expect([...message.reactions]).toEqual(['white_check_mark'])
    expect(message.text).toContain('Approved by carol')
    expect(message.text).not.toContain('review-helper')
  })

  it('on: a bot review of a pull request without a message does not announce it', async () => {
    await start(provider, { reviews: { ignore_bot_reviews: true } })
    await send(provider, [steps.approve])
    expect(h.slack.count('chat.postMessage')).toBe(0)
    expect(ignoredAs('bot_review')).toHaveLength(1)
  })
})

/** A dependency bot's pull request on each host; on Bitbucket the bot is only known through the config. */
const bump = {
  github: (facts: PullRequestFacts = {}) => ({
    open: { event: 'pull_request', payload: pullRequest('opened', 9, { author: 'dependabot[bot]', title: 'Bump express from 4.18.2 to 4.19.0', body: fixture('dependabot-routine'), ...facts }) },
    approve: { event: 'pull_request_review', payload: review('approved', 9, 'carol') },
    merge: { event: 'pull_request', payload: pullRequest('closed', 9, { merged: true, author: 'dependabot[bot]', title: 'Bump express from 4.18.2 to 4.19.0', ...facts }) },
  }),
  bitbucket: (facts: { title?: string; description?: string } = {}) => ({
    open: { event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id: 9, author: 'renovate-bot', title: 'Update dependency vitest to v2.1.5', description: fixture('renovate-routine'), ...facts }) },
    approve: { event: 'pullrequest:approved', payload: bitbucketPayload('pullrequest:approved', { id: 9, author: 'renovate-bot', actor: 'carol', title: 'Update dependency vitest to v2.1.5', ...facts }) },
    merge: { event: 'pullrequest:fulfilled', payload: bitbucketPayload('pullrequest:fulfilled', { id: 9, author: 'renovate-bot', state: 'MERGED', title: 'Update dependency vitest to v2.1.5', ...facts }) },
  }),
}
const expected = {
  github: { bot: 'dependabot[bot]', url: 'https://github.com/Codertocat/Hello-World/pull/9', title: 'Bump express from 4.18.2 to 4.19.0', logins: [] },
  bitbucket: { bot: 'renovate-bot', url: 'https://bitbucket.org/acme/api/pull-requests/9', title: 'Update dependency vitest to v2.1.5', logins: ['renovate-bot'] },
} as const
const withLogins = (provider: keyof typeof expected, reviews: Record<string, unknown> = {}) =>
  ({ reviews: { dependency_bot_logins: [...expected[provider].logins], ...reviews } })

describe.each(['github', 'bitbucket'] as const)('%s: reviews.dependency_bots', (provider) => {
  const want = expected[provider]

  it('compact (the default): a routine bump is one line without mentions, and still follows the lifecycle', async () => {
    await start(provider, withLogins(provider))
    const steps = bump[provider]()
    await send(provider, [steps.open])
    expect(h.slack.messagesIn(TEAM)[0]!.blocks).toHaveLength(1)
    expect(headline()).toBe(`:package: ${want.bot} bumped <${want.url}|PR #9: ${want.title}>`)

    await send(provider, [steps.approve, steps.merge])
    const message = h.slack.messagesIn(TEAM)[0]!
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect(headline()).toBe(`[Merged] :package: ${want.bot} bumped <${want.url}|PR #9: ~${want.title}~>`)
    expect([...message.reactions].sort()).toEqual(['twisted_rightwards_arrows', 'white_check_mark'])
  })

  it('compact: a security update is flagged and keeps the channel\'s mentions', async () => {
    await start(provider, withLogins(provider))
    const steps = provider === 'github'
      ? bump.github({ body: fixture('dependabot-security-ghsa') })
      : bump.bitbucket({ title: 'Update dependency vite to v5.4.6 [SECURITY]', description: fixture('renovate-security') })
    await send(provider, [steps.open])
    const title = provider === 'github' ? want.title : 'Update dependency vite to v5.4.6 [SECURITY]'
    expect(headline()).toBe(`${ALICE} :rotating_light: ${want.bot} security update <${want.url}|PR #9: ${title}>`)
  })

  it('standard: the same pull request gets the full message', async () => {
    await start(provider, withLogins(provider, { dependency_bots: 'standard' }))
    await send(provider, [bump[provider]().open])
    expect(h.slack.messagesIn(TEAM)[0]!.blocks).toHaveLength(3)
    expect(headline()).toBe(`${ALICE} <${want.url}|PR #9: ${want.title}>`)
  })
})

describe('dependency bots: who counts, and when the form is chosen', () => {
  it('bitbucket: without dependency_bot_logins no author is a dependency bot, not even renovate[bot]', async () => {
    await start('bitbucket')
    await send('bitbucket', [bump.bitbucket().open])
    expect(h.slack.messagesIn(TEAM)[0]!.blocks).toHaveLength(3)
  })

  it('github: dependency_bot_logins adds a self-hosted Renovate login to the built-ins', async () => {
    await start('github', { reviews: { dependency_bot_logins: ['acme-renovate[bot]'] } })
    await send('github', [bump.github({ author: 'Acme-Renovate[bot]' }).open])
    expect(headline()).toBe(`:package: Acme-Renovate[bot] bumped <${expected.github.url}|PR #9: ${expected.github.title}>`)
  })

  it('github: the classification made at announcement is kept: a later security label does not turn a bump into an alarm', async () => {
    await start('github')
    const steps = bump.github()
    await send('github', [steps.open, bump.github({ labels: ['security'] }).merge])
    expect(headline()).toBe(`[Merged] :package: dependabot[bot] bumped <${expected.github.url}|PR #9: ~${expected.github.title}~>`)
  })
})
