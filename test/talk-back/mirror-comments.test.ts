import { describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { bitbucketFixture } from '../helpers/bitbucket-fixtures.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { commentHook, mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'

/**
 * `slack.talk_back.mirror`, end to end on each host: the real server on 127.0.0.1, a real SQLite file, signed
 * deliveries in the hosts' documented shapes, and a fake Slack that records every call.
 */
const TEAM = 'C0000000001'
const DAVE = 'U0000DAVE'
const MARKER = '[//]: # (prherald-reply C0000000001 1700000000.000100)'

type Json = Record<string, any>
type Action = 'created' | 'edited' | 'deleted'
interface Delivery { event: string; payload: Json; deliveryId?: string }

/** Per host: where the pull request lives, how it opens, and a comment (its id, its author, its text, its place). */
interface HostCase {
  mappings: Record<string, Record<string, unknown>>
  users: Record<string, string>
  name: string
  open(): Delivery
  comment(action: Action, c: { id: number; author?: string; body?: string; code?: boolean }): Delivery
  /** Edits and deletions the host sends (GitLab sends no deletion). */
  changes: readonly Action[]
}

const github: HostCase = {
  mappings: { Codertocat: { 'Hello-World': { channel: TEAM } } },
  users: { dave: DAVE },
  name: 'GitHub',
  changes: ['edited', 'deleted'],
  open: () => ({ event: 'pull_request', payload: pullRequest('opened', 7) }),
  comment(action, c) {
    if (c.code) {
      const payload = githubExample('pull_request_review_comment', action, (p) => 'line' in (p.comment as object)) as Json
      payload.pull_request.number = 7
      payload.pull_request.draft = false
      Object.assign(payload.comment, { id: c.id, body: c.body ?? 'Why not a Map?', path: 'src/cache.ts', line: 12 })
      payload.comment.user.login = c.author ?? 'dave'
      delete payload.comment.in_reply_to_id
      return { event: 'pull_request_review_comment', payload }
    }
    const payload = githubExample('issue_comment', action) as Json
    payload.issue.number = 7
    payload.issue.pull_request = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/7', html_url: 'https://github.com/Codertocat/Hello-World/pull/7' }
    payload.issue.state = 'open'
    Object.assign(payload.comment, { id: c.id, body: c.body ?? 'Could this use **the cache**?', html_url: `https://github.com/Codertocat/Hello-World/pull/7#issuecomment-${c.id}` })
    payload.comment.user = { ...payload.comment.user, login: c.author ?? 'dave', type: c.author?.endsWith('[bot]') ? 'Bot' : 'User' }
    return { event: 'issue_comment', payload }
  },
}

const gitlab: HostCase = {
  mappings: { acme: { api: { channel: TEAM } } },
  users: { dave: DAVE },
  name: 'GitLab',
  changes: ['edited'],
  open: () => ({ event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 3 }) }),
  comment(action, c) {
    const payload = commentHook({ iid: 3, actor: c.author ?? 'dave' }, {
      id: c.id, note: c.body ?? 'Could this use **the cache**?', action: action === 'created' ? 'create' : 'update',
      ...(c.code ? { diff: { path: 'lib/cache.rb', line: 12, discussion: 'e'.repeat(40) } } : {}),
    })
    return { event: 'Note Hook', payload }
  },
}

const BITBUCKET_KEYS: Record<Action, string> = { created: 'comment_created', edited: 'comment_updated', deleted: 'comment_deleted' }
const bitbucket: HostCase = {
  mappings: { acme: { 'payments-api': { channel: TEAM } } },
  users: { '5b90d99f96cb052b5f65ab5d': DAVE },
  name: 'Bitbucket',
  changes: ['edited', 'deleted'],
  open: () => ({ event: 'pullrequest:created', payload: bitbucketFixture('created') }),
  comment(action, c) {
    const payload = bitbucketFixture(c.code ? 'comment_created_inline' : BITBUCKET_KEYS[action]) as Json
    Object.assign(payload.comment, { id: c.id, content: { raw: c.body ?? 'Could this use **the cache**?', markup: 'markdown' } })
    if (c.code) delete payload.comment.parent
    if (c.author) payload.comment.user = { ...payload.comment.user, nickname: c.author, account_id: `557058:${c.author}`, type: c.author.endsWith('bot') ? 'app_user' : 'user' }
    return { event: `pullrequest:${BITBUCKET_KEYS[action]}`, payload }
  },
}

const HOSTS: Record<string, HostCase> = { github, gitlab, bitbucket }

const h = usePrherald()

async function start(provider: Provider, talkBack: Record<string, unknown> = { mirror: 'all' }, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const host = HOSTS[provider]!
  writeConfig(h.dir.path, { git_provider: provider, mappings: host.mappings, users: host.users, slack: { talk_back: talkBack }, ...extra } as never)
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url, ...env }))
  await send(provider, host.open())
}

async function send(provider: Provider, ...deliveries: Delivery[]): Promise<void> {
  for (const delivery of deliveries) {
    const res = await deliver(h.service!.url, provider, delivery)
    expect(res.status).toBe(200)
  }
  expect(await h.service!.settle(20_000)).toBe(true)
}

const message = () => {
  const messages = h.slack.messagesIn(TEAM)
  expect(messages).toHaveLength(1)
  return messages[0]!
}
const replies = () => h.slack.repliesTo(TEAM, message().ts)

describe.each(['github', 'gitlab', 'bitbucket'] as const)('%s: comments come into the thread', (provider) => {
  const host = HOSTS[provider]!

  it('a conversation comment becomes one reply, "*dave* on <host>: …", its Markdown as mrkdwn; a redelivery posts nothing more', async () => {
    await start(provider)
    const comment = host.comment('created', { id: 501 })
    await send(provider, { ...comment, deliveryId: 'comment-1' })
    expect(replies()).toHaveLength(1)
    const author = provider === 'bitbucket' ? 'rcosta' : 'dave'
    expect(replies()[0]!.text).toBe(`*${author}* on ${host.name}: Could this use *the cache*?`)
    // The host's own redelivery (same id) is refused at the intake; the same comment under a new id and in
    // other bytes (a replay the intake cannot tell) finds its reply by the comment's id.
    const copy = { ...comment, payload: { ...comment.payload, replayed: true }, deliveryId: 'comment-1-again' }
    await send(provider, { ...comment, deliveryId: 'comment-1' }, copy)
    expect(h.service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === 'duplicate_delivery')).toHaveLength(1)
    expect(replies()).toHaveLength(1)
    expect(h.slack.count('chat.postMessage')).toBe(2)
  })

  it('edits follow with chat.update and deletions with chat.delete, where the host sends them', async () => {
    await start(provider)
    await send(provider, host.comment('created', { id: 502 }))
    const reply = replies()[0]!
    await send(provider, host.comment('edited', { id: 502, body: 'Never mind, _found it_' }))
    expect(h.slack.count('chat.update')).toBeGreaterThanOrEqual(1)
    expect(replies()[0]!.text).toContain('Never mind, _found it_')
    expect(replies()[0]!.ts).toBe(reply.ts)
    if (!host.changes.includes('deleted')) return
    await send(provider, host.comment('deleted', { id: 502 }))
    expect(h.slack.count('chat.delete')).toBe(1)
    expect(replies()).toHaveLength(0)
  })

  it('prherald\'s own comment from Slack comes back as nothing (no echo)', async () => {
    await start(provider)
    const before = h.slack.calls.length
    await send(provider, host.comment('created', { id: 503, body: `**Erin** (from Slack): sounds right\n\n${MARKER}` }))
    expect(replies()).toHaveLength(0)
    expect(h.slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage')).toHaveLength(0)
  })

  it('a bot\'s comment is mirrored unless reviews.ignore_bot_reviews mutes bots', async () => {
    const bot = provider === 'github' ? 'lint-helper[bot]' : 'lintbot'
    if (provider === 'gitlab') return // GitLab's hooks do not say whether a user is a bot
    await start(provider, { mirror: 'all' }, { reviews: { ignore_bot_reviews: true } })
    await send(provider, host.comment('created', { id: 504, author: bot }))
    expect(replies()).toHaveLength(0)
    await h.fresh()
    await start(provider)
    await send(provider, host.comment('created', { id: 504, author: bot }))
    expect(replies()).toHaveLength(1)
  })

  it('a code comment comes with its file and line under `all`, and not under `comments`', async () => {
    await start(provider, { mirror: 'comments' })
    await send(provider, host.comment('created', { id: 505, code: true }))
    expect(replies()).toHaveLength(0)
    await h.fresh()
    await start(provider, { mirror: 'all' })
    await send(provider, host.comment('created', { id: 505, code: true }))
    expect(replies()).toHaveLength(1)
    expect(replies()[0]!.text).toMatch(provider === 'gitlab' ? /`lib\/cache\.rb:12`/ : provider === 'github' ? /`src\/cache\.ts:12`/ : /`src\/capture\/retry\.ts:57`/)
  })

  it('200 comments in a burst fold into one reply per batch, with the count, never 200 posts', async () => {
    // Slack's pacing on, as in production: while a reply waits for the channel's budget the next comments gather.
    await start(provider, { mirror: 'all' }, {}, { PRHERALD_SLACK_PACING: 'published' })
    const burst = Array.from({ length: 200 }, (_, i) => host.comment('created', { id: 1000 + i, body: `note ${i}` }))
    const answers = await Promise.all(burst.map((d) => deliver(h.service!.url, provider, d)))
    expect(answers.every((r) => r.status === 200)).toBe(true)
    expect(await h.service!.settle(60_000)).toBe(true)
    const posted = replies()
    expect(posted.length).toBeLessThan(20)
    // Every comment is told of once: singly, or counted in a folded reply.
    const counted = posted.reduce((sum, r) => sum + (/^:speech_balloon: (\d+) new comments/.exec(r.text) ? Number(/^:speech_balloon: (\d+)/.exec(r.text)![1]) : 1), 0)
    expect(counted).toBe(200)
    expect(posted.some((r) => r.text.startsWith(':speech_balloon: '))).toBe(true)
  })
})

describe('mirror: off', () => {
  it('is the default: a comment stays on the pull request, and its text is not kept with its delivery', async () => {
    writeConfig(h.dir.path, { git_provider: 'github', mappings: github.mappings } as never)
    await h.start(testEnv(h.dir.path, 'github', { SLACK_API_URL: h.slack.url }))
    await send('github', github.open(), github.comment('created', { id: 506, body: 'a secret plan' }))
    expect(replies()).toHaveLength(0)
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(`${h.dir.path}/prherald.db`).includes(Buffer.from('a secret plan'))).toBe(false)
  })
})
