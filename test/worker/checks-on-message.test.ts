import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { statusOf } from '../faults/pr-messages.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/** Checks on the message (issue 14.4), end to end with GitHub's example check_suite and status payloads. */
const CHANNEL = 'C0000000001'
const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821' // the example pull request's head
const NEXT = 'b'.repeat(40)
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

type Json = Record<string, any>
let clock = Date.UTC(2026, 10, 20, 10)
const later = () => new Date((clock += 60_000)).toISOString()

function checkSuite(sha: string, conclusion: string, options: { app?: string; listed?: number[]; at?: string } = {}): Json {
  const payload = githubExample('check_suite', 'completed', (p) => typeof (p.check_suite as Json).app?.slug === 'string') as Json
  Object.assign(payload.check_suite, { head_sha: sha, conclusion, updated_at: options.at ?? later() })
  payload.check_suite.app.slug = options.app ?? 'github-actions'
  payload.check_suite.pull_requests = (options.listed ?? []).map((number) => ({ number, head: { sha }, base: { repo: { id: payload.repository.id } } }))
  return payload
}

function status(sha: string, state: string, context = 'ci/build'): Json {
  return Object.assign(githubExample('status') as Json, { sha, state, context, updated_at: later() })
}

function push(number: number, sha: string): Json {
  const payload = pullRequest('synchronize', number)
  Object.assign(payload.pull_request, { updated_at: later() })
  payload.pull_request.head.sha = sha
  return payload
}

async function send(event: string, payload: unknown, deliveryId?: string): Promise<Json> {
  const res = await deliver(service!.url, 'github', { event, payload, deliveryId })
  expect(res.status).toBe(200)
  const body = await res.json() as Json
  expect(await service!.settle(10_000)).toBe(true)
  return body
}

const message = () => slack.messagesIn(CHANNEL)[0]!
const ignored = (reason: string) => service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === reason)

describe('checks on the message', () => {
  it('shows failing while any app or context fails on the head, passing when all pass, with the red_circle reaction', async () => {
    await send('pull_request', pullRequest('opened', 2))
    expect(statusOf(message())).toBe('Open')

    await send('check_suite', checkSuite(HEAD, 'failure')) // lists no pull request: found through the recorded head
    expect(statusOf(message())).toBe('Checks failing')
    expect([...message().reactions]).toEqual(['red_circle'])

    await send('status', status(HEAD, 'success'))
    expect(statusOf(message())).toBe('Checks failing') // one failing app is enough
    await send('check_suite', checkSuite(HEAD, 'success')) // the app's re-run passes: its latest result counts
    expect(statusOf(message())).toBe('Checks passing')
    expect([...message().reactions]).toEqual([])

    await send('status', status(HEAD, 'error', 'ci/deploy'))
    expect(statusOf(message())).toBe('Checks failing')
    expect(slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(pendingDeliveries(dir.path)).toBe(0)
  })

  it('a push starts the checks over; a result for the old head changes nothing', async () => {
    await send('pull_request', pullRequest('opened', 2))
    await send('check_suite', checkSuite(HEAD, 'failure', { listed: [2] }))
    expect([...message().reactions]).toEqual(['red_circle'])

    await send('pull_request', push(2, NEXT))
    expect(statusOf(message())).toBe('Open')
    expect([...message().reactions]).toEqual([])
    const updates = slack.count('chat.update')
    await send('status', status(HEAD, 'failure'))
    expect(slack.count('chat.update')).toBe(updates)
    expect(ignored('not_head_commit')).toHaveLength(1)

    await send('status', status(NEXT, 'success'))
    expect(statusOf(message())).toBe('Checks passing')
  })

  it('a result older than the one kept does not replace it; a repeated delivery is a duplicate', async () => {
    await send('pull_request', pullRequest('opened', 2))
    const newer = checkSuite(HEAD, 'success', { at: '2026-11-20T12:00:00Z' })
    const older = checkSuite(HEAD, 'failure', { at: '2026-11-20T11:00:00Z' })
    await send('check_suite', newer, 'suite-new')
    await send('check_suite', older, 'suite-old')
    expect(statusOf(message())).toBe('Checks passing')
    expect(await send('check_suite', newer, 'suite-new')).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
  })

  it('a result for a commit that is no pull request\'s head, or for one without a message, is ignored', async () => {
    expect(await send('status', status('c'.repeat(40), 'failure'))).toEqual({ status: 'ignored', reason: 'unknown_commit' })
    await send('pull_request', pullRequest('opened', 3, { draft: true })) // a draft: no message yet
    expect(await send('check_suite', checkSuite(HEAD, 'failure'))).toEqual({ status: 'ignored', reason: 'no_stored_message' })
    expect(slack.count('chat.postMessage')).toBe(0)
  })

  it('a commit that is the head of two pull requests gives its result to both', async () => {
    await send('pull_request', pullRequest('opened', 2))
    // The same commit is also pull request 5's head (two pull requests from one branch): both get the result.
    await send('pull_request', pullRequest('opened', 5))
    await send('check_suite', checkSuite(HEAD, 'timed_out'))
    const statuses = slack.messagesIn(CHANNEL).map(statusOf)
    expect(statuses).toEqual(['Checks failing', 'Checks failing'])
  })
})
