import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * notify.review_requests (issue 14.2, second half): a newly requested reviewer who maps to a Slack user (a team
 * to a user group) is pinged once in the message's thread, through the real server and a fake Slack.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE0001'
const BACKEND = 'S0BACKEND1'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
})
afterEach(async () => {
  slack.faults.length = 0
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

type Json = Record<string, any>
let clock = Date.UTC(2026, 10, 20, 10)
const later = () => new Date((clock += 60_000)).toISOString()

function github(extra: Record<string, unknown> = {}) {
  writeConfig(dir.path, {
    git_provider: 'github', server: { shutdown_timeout_seconds: 1 }, users: { dave: DAVE }, teams: { backend: BACKEND },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } }, ...extra,
  })
  return startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
}

const team = (slug: string) => ({ name: slug, id: 42, node_id: 'T_42', slug, description: null, privacy: 'closed', permission: 'pull', parent: null,
  url: `https://api.github.com/teams/42`, html_url: `https://github.com/orgs/Codertocat/teams/${slug}`, members_url: '', repositories_url: '' })

/** The real review_requested example for pull request 2, asking `who` (a login, or `team:<slug>`), with the full list `listed`. */
function requested(who: string, listed: string[]): Json {
  const payload = githubExample('pull_request', 'review_requested') as Json
  const asUser = (login: string) => ({ ...payload.requested_reviewer, login })
  delete payload.requested_reviewer
  if (who.startsWith('team:')) payload.requested_team = team(who.slice(5))
  else payload.requested_reviewer = asUser(who)
  payload.pull_request.requested_reviewers = listed.filter((l) => !l.startsWith('team:')).map(asUser)
  payload.pull_request.requested_teams = listed.filter((l) => l.startsWith('team:')).map((l) => team(l.slice(5)))
  payload.pull_request.updated_at = later()
  payload.pull_request.draft = false
  return payload
}

function opened(): Json {
  const payload = pullRequest('opened', 2)
  Object.assign(payload.pull_request, { requested_reviewers: [], requested_teams: [], updated_at: later() })
  return payload
}

async function send(event: string, payload: unknown, deliveryId?: string): Promise<void> {
  expect((await deliver(service!.url, 'github', { event, payload, deliveryId })).status).toBe(200)
}

const replies = () => {
  const [message] = slack.messagesIn(CHANNEL)
  return message ? slack.repliesTo(CHANNEL, message.ts).map((r) => r.text) : []
}

describe('review request pings', () => {
  it('pings a newly requested, mapped reviewer or team once; repeats, re-requests and unmapped reviewers get none', async () => {
    service = await github()
    await send('pull_request', opened())
    await send('pull_request', requested('dave', ['dave']), 'request-dave')
    await send('pull_request', requested('dave', ['dave']), 'request-dave') // the same delivery again
    await send('pull_request', requested('dave', ['dave']), 'request-dave-again') // asked again while still asked
    await send('pull_request', requested('erin', ['dave', 'erin'])) // not in users:: nobody to ping
    await send('pull_request', requested('team:backend', ['dave', 'erin', 'team:backend']))
    expect(await service.settle(10_000)).toBe(true)
    expect(replies()).toEqual([`:eyes: <@${DAVE}> your review is requested`, `:eyes: <!subteam^${BACKEND}> your review is requested`])
    expect(slack.messagesIn(CHANNEL)).toHaveLength(1)
  })

  it('the announcement itself names who it waits on: no ping for those', async () => {
    service = await github()
    const payload = opened()
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }]
    await send('pull_request', payload)
    expect(await service.settle(10_000)).toBe(true)
    expect(slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(replies()).toEqual([])
  })

  it('notify.review_requests: off pings nobody', async () => {
    service = await github({ notify: { review_requests: 'off' } })
    await send('pull_request', opened())
    await send('pull_request', requested('dave', ['dave']))
    expect(await service.settle(10_000)).toBe(true)
    expect(slack.count('chat.update')).toBe(1) // the message still shows who it waits on
    expect(replies()).toEqual([])
  })

  it('a replayed batch pings once per reviewer, even with its requests folded together', async () => {
    service = await github()
    await send('pull_request', opened())
    expect(await service.settle(10_000)).toBe(true)
    for (let i = 0; i < 10_000; i++) slack.faults.push({ method: 'chat.update', fault: { status: 503 } })
    await send('pull_request', requested('dave', ['dave']))
    await send('pull_request', requested('team:backend', ['dave', 'team:backend']))
    await waitFor('an update to be refused', () => slack.count('chat.update') > 0)
    expect(await service.stop()).toEqual({ drained: false })
    expect(pendingDeliveries(dir.path)).toBe(2)
    slack.faults.length = 0
    service = await github()
    expect(await service.settle(10_000)).toBe(true)
    expect(replies()).toEqual([`:eyes: <@${DAVE}> your review is requested`, `:eyes: <!subteam^${BACKEND}> your review is requested`])
    expect(pendingDeliveries(dir.path)).toBe(0)
  })

  it('Bitbucket: a reviewer added to the list of pullrequest:updated is pinged by account id', async () => {
    const account = '557058:0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e'
    writeConfig(dir.path, { git_provider: 'bitbucket', users: { [account]: DAVE }, mappings: { acme: { '*': { channel: CHANNEL } } } })
    service = await startPrherald(dir.path, testEnv(dir.path, 'bitbucket', { SLACK_API_URL: slack.url }))
    const sendBb = async (event: string, payload: Record<string, any>) => {
      expect((await deliver(service!.url, 'bitbucket', { event, payload })).status).toBe(200)
      expect(await service!.settle(10_000)).toBe(true)
    }
    const created = bitbucketPayload('pullrequest:created', { id: 4 }) as Json
    Object.assign(created.pullrequest, { reviewers: [], participants: [] })
    await sendBb('pullrequest:created', created)
    const updated = bitbucketPayload('pullrequest:updated', { id: 4 }) as Json
    Object.assign(updated.pullrequest, {
      updated_on: '2026-11-21T11:00:00.000000+00:00', participants: [],
      reviewers: [{ display_name: 'Dave', nickname: 'dave', account_id: account, type: 'user' }],
    })
    await sendBb('pullrequest:updated', updated)
    expect(replies()).toEqual([`:eyes: <@${DAVE}> your review is requested`])
  })
})
