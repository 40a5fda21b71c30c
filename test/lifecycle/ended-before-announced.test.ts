import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { databaseSection } from '../../src/checks/preflight.ts'
/** The hosts these cases cover. */
type Provider = 'github' | 'bitbucket'
import { inspectDatabase } from '../../src/store/inspect-database.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { bitbucketPayload } from './bitbucket-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Issue 11.1 end to end: real server, real SQLite file, fake Slack. A pull request merged or closed before
 * prherald announced it is never announced as open; only a real reopening (sent after the end) posts.
 */
const CHANNEL = 'C0000000011'
const OPENED_AT = { github: '2026-11-20T09:30:00Z', bitbucket: '2026-11-20T09:30:00.000000+00:00' }
const ENDED_AT = { github: '2026-11-20T10:00:00Z', bitbucket: '2026-11-20T10:00:00.123456+00:00' }
const REOPENED_AT = { github: '2026-11-20T11:00:00Z', bitbucket: '2026-11-20T11:00:00.000000+00:00' }

const h = usePrherald()

type Json = Record<string, any>
type Step = 'opened' | 'merged' | 'closed' | 'reopened' | 'approved'

/** GitHub: the real example payloads, with the number, state and updated_at of the scenario. */
function githubDelivery(step: Step, number: number, updatedAt: string): { event: string; payload: Json } {
  if (step === 'approved') {
    const payload = githubExample('pull_request_review', 'submitted') as Json
    payload.review.state = 'approved'
    Object.assign(payload.pull_request, { number, updated_at: updatedAt, state: 'open', draft: false })
    return { event: 'pull_request_review', payload }
  }
  const payload = githubExample('pull_request', step === 'merged' || step === 'closed' ? 'closed' : step) as Json
  payload.number = number
  const ended = step === 'merged' || step === 'closed'
  Object.assign(payload.pull_request, {
    number, updated_at: updatedAt, draft: false, merged: step === 'merged', state: ended ? 'closed' : 'open',
    html_url: `https://github.com/Codertocat/Hello-World/pull/${number}`,
  })
  return { event: 'pull_request', payload }
}

/** Bitbucket Cloud has no reopen event: a `pullrequest:updated` that shows the pull request open again stands for it. */
function bitbucketDelivery(step: Step, number: number, updatedAt: string): { event: string; payload: Json } {
  const key = { opened: 'created', merged: 'fulfilled', closed: 'rejected', reopened: 'updated', approved: 'approved' }[step]
  const state = step === 'merged' ? 'MERGED' : step === 'closed' ? 'DECLINED' : 'OPEN'
  const payload = bitbucketPayload(`pullrequest:${key}`, { id: number, state, actor: step === 'approved' ? 'carol' : 'bob' }) as Json
  payload.pullrequest.updated_on = updatedAt
  return { event: `pullrequest:${key}`, payload }
}

async function start(provider: Provider): Promise<TestService> {
  const mappings: Record<string, Record<string, unknown>> = provider === 'github'
    ? { Codertocat: { 'Hello-World': { channel: CHANNEL, mentions: ['<!here>'] } } }
    : { acme: { api: { channel: CHANNEL, mentions: ['<!here>'] } } }
  writeConfig(h.dir.path, { git_provider: provider, mappings })
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url }))
  return h.service!
}

async function send(provider: Provider, step: Step, number: number, at: Record<Provider, string>): Promise<void> {
  const delivery = (provider === 'github' ? githubDelivery : bitbucketDelivery)(step, number, at[provider])
  const res = await deliver(h.service!.url, provider, delivery)
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
}

interface Row { channel: string; ts: string; state: string; lifecycle: string }
function rows(number: number): Row[] {
  const db = new Database(join(h.dir.path, 'prherald.db'), { readonly: true })
  try {
    return db.prepare('SELECT channel, ts, state, lifecycle FROM slack_messages WHERE pr_number = ? ORDER BY created_at, channel').all(number) as Row[]
  } finally {
    db.close()
  }
}

const ignoredEnded = () => h.service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === 'ended_before_announced')

describe.each(['github', 'bitbucket'] as const)('%s: a pull request that ended before it was announced', (provider) => {
  it('merged before opened: no Slack call, a row without a message, and the later opened stays silent', async () => {
    await start(provider)
    await send(provider, 'merged', 31, ENDED_AT)
    expect(h.slack.calls).toHaveLength(0)
    expect(rows(31)).toEqual([expect.objectContaining({ channel: '', ts: '', state: 'ended' })])
    expect(JSON.parse(rows(31)[0]!.lifecycle)).toMatchObject({ state: 'ended', context: { endedAt: ENDED_AT[provider] } })

    await send(provider, 'opened', 31, OPENED_AT)
    await send(provider, 'approved', 31, OPENED_AT)
    expect(h.slack.calls).toHaveLength(0)
    expect(ignoredEnded()).toHaveLength(3)
    expect(rows(31)).toEqual([expect.objectContaining({ channel: '', ts: '', state: 'ended' })])
  })

  it('the end outlives a restart: the opened delivered after it stays silent', async () => {
    await start(provider)
    await send(provider, 'closed', 32, ENDED_AT)
    await h.stop()
    await start(provider)
    await send(provider, 'opened', 32, OPENED_AT)
    expect(h.slack.calls).toHaveLength(0)
    expect(ignoredEnded()).toHaveLength(1)
  })

  it('closed, a stale reopen stays silent; a reopen sent after the end posts one message', async () => {
    await start(provider)
    await send(provider, 'closed', 33, ENDED_AT)
    await send(provider, 'opened', 33, OPENED_AT)
    await send(provider, 'reopened', 33, OPENED_AT)
    expect(h.slack.calls).toHaveLength(0)

    await send(provider, 'reopened', 33, REOPENED_AT)
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect(h.slack.calls.map((c) => c.method)).toEqual(['chat.postMessage'])
    const [message] = h.slack.messagesIn(CHANNEL)
    expect(JSON.stringify(message!.blocks)).toContain('<!here>')
    // Open again: GitHub's reopened example still asks octocat to review; the Bitbucket fixture asks no one.
    expect(message!.text).toMatch(provider === 'github' ? /— Waiting on octocat$/ : /— Open$/)
    // The message's row now holds the lifecycle; the row without a message only recorded the end.
    expect(rows(33).map((r) => [r.channel, r.state])).toEqual([['', 'ended'], [CHANNEL, 'open']])

    // From here on the ordinary lifecycle: a review updates that one message.
    await send(provider, 'approved', 33, REOPENED_AT)
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect(h.slack.count('chat.update')).toBe(1)
  })

  it('doctor counts the rows without a message, and cleanup removes them by age', async () => {
    await start(provider)
    await send(provider, 'merged', 34, ENDED_AT)
    await send(provider, 'reopened', 35, OPENED_AT)
    await h.stop()
    const report = await inspectDatabase(join(h.dir.path, 'prherald.db'))
    expect(report).toMatchObject({ messages: 2, withoutMessage: 1 })
    expect(databaseSection('db', report).find((c) => c.name === 'slack_messages')?.reason)
      .toBe('2 rows (1 without a Slack message: ended before they were announced)')

    const db = new Database(join(h.dir.path, 'prherald.db'))
    db.prepare("UPDATE slack_messages SET touched_at = 0 WHERE ts = ''").run()
    // Cleanup runs once a UTC day (docs/operations.md): forgetting today's run makes this start-up the next day's.
    db.prepare("DELETE FROM job_runs WHERE job = 'cleanup'").run()
    db.close()
    await start(provider) // the day's cleanup runs at start-up
    expect(rows(34)).toEqual([])
    expect(rows(35)).toHaveLength(1)
  })
})
