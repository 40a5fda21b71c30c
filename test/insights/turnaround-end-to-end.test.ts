import { beforeEach, describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { bitbucketFixture } from '../helpers/bitbucket-fixtures.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { mergeRequestHook, type GitlabFacts } from '../helpers/gitlab-fixtures.ts'
import { personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * Turnaround figures end to end on each host: real-shaped deliveries (opened Friday 17:00 UTC, approved Monday
 * 09:00, merged Monday 10:30) through a real server with `insights.enabled`, then `/prherald stats <repository>`.
 * Worked out by hand with the default working hours (08:00-19:00 UTC, weekdays): first review and approval
 * Friday 17:00-19:00 + Monday 08:00-09:00 = 3 h working, 64 h (2.7 d) calendar; merge 3 h + 1.5 h = 4.5 h
 * working, 65.5 h (2.7 d) calendar. With insights off nothing is kept and the command says so.
 */
const OPENED = '2026-12-04T17:00:00Z' // a Friday
const APPROVED = '2026-12-07T09:00:00Z' // the Monday after
const MERGED = '2026-12-07T10:30:00Z'
const NOW = Date.parse('2026-12-07T12:00:00Z')
const CHANNEL = 'C0000000001'
const ASKER = 'U0DAVE'

type Json = Record<string, any>
interface HostCase { provider: Provider; owner: string; repository: string; deliveries: () => Array<{ event: string; payload: Json }> }

function github(): Array<{ event: string; payload: Json }> {
  const opened = pullRequest('opened', 9)
  Object.assign(opened.pull_request, { created_at: OPENED, updated_at: OPENED })
  const approved = review('approved', 9, 'dave')
  Object.assign(approved.pull_request, { created_at: OPENED, updated_at: APPROVED })
  const merged = pullRequest('closed', 9, { merged: true })
  Object.assign(merged.pull_request, { created_at: OPENED, updated_at: MERGED, merged_at: MERGED })
  return [{ event: 'pull_request', payload: opened }, { event: 'pull_request_review', payload: approved }, { event: 'pull_request', payload: merged }]
}

function gitlab(): Array<{ event: string; payload: Json }> {
  const hook = (action: string, facts: Omit<GitlabFacts, 'iid'>) => {
    const payload = mergeRequestHook(action, { iid: 7, ...facts })
    payload.object_attributes.created_at = OPENED
    return { event: 'Merge Request Hook', payload }
  }
  return [hook('open', { updatedAt: OPENED }), hook('approval', { actor: 'carol', updatedAt: APPROVED }), hook('merge', { state: 'merged', updatedAt: MERGED })]
}

function bitbucket(): Array<{ event: string; payload: Json }> {
  const at = (name: string, updated: string) => {
    const payload = bitbucketFixture(name) as Json
    Object.assign(payload.pullrequest, { created_on: OPENED, updated_on: updated })
    return { event: `pullrequest:${name}`, payload }
  }
  return [at('created', OPENED), at('approved', APPROVED), at('fulfilled', MERGED)]
}

const HOSTS: HostCase[] = [
  { provider: 'github', owner: 'Codertocat', repository: 'Codertocat/Hello-World', deliveries: github },
  { provider: 'gitlab', owner: 'acme', repository: 'acme/api', deliveries: gitlab },
  { provider: 'bitbucket', owner: 'acme', repository: 'acme/payments-api', deliveries: bitbucket },
]

describe.each(personalStores())('turnaround figures end to end ($name)', ({ databaseUrl }) => {
  const h = personalHarness(databaseUrl)
  const start = async (host: HostCase, insights: boolean) => {
    writeConfig(h.dir.path, {
      git_provider: host.provider, insights: { enabled: insights }, users: {}, mappings: { [host.owner]: { '*': { channel: CHANNEL } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, host.provider, {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...h.database.env,
    }), { clock: () => NOW })
    for (const d of host.deliveries()) expect((await deliver(h.service.url, host.provider, d)).status).toBe(200)
    expect(await h.service.settle(10_000)).toBe(true)
  }
  const stats = async (text: string): Promise<string> => {
    const responseUrl = `${new URL(h.slack.url).origin}/commands/T0ACME/1/stats`
    const res = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm(ASKER, text, { response_url: responseUrl }))
    const first = ((await res.json()) as { text?: string }).text ?? ''
    if (first !== 'Counting…') return first
    await waitFor('the late answer', () => h.slack.calls.some((c) => c.method.startsWith('commands/')))
    return (h.slack.calls.find((c) => c.method.startsWith('commands/'))!.body as { text: string }).text
  }
  beforeEach(() => { h.slack.users.set(ASKER, { tz: 'UTC' }) })

  it.each(HOSTS)('$provider: time to first review, approval and merge in working and calendar hours', async (host) => {
    await start(host, true)
    const answer = await stats(`stats ${host.repository}`)
    expect(answer.split('\n')).toEqual([
      'Turnaround over the last week: working hours (08:00-19:00 UTC, weekdays), calendar time in brackets.',
      `*${host.repository}* — 1 merged`,
      '• first review: p50 3.0 h (2.7 d), p90 3.0 h (2.7 d), 1 PR',
      '• approval: p50 3.0 h (2.7 d), p90 3.0 h (2.7 d), 1 PR',
      '• merge: p50 4.5 h (2.7 d), p90 4.5 h (2.7 d), 1 PR',
      expect.stringMatching(/^• reviews: \S+ 1$/),
    ])
  })

  it('shows the App Home "your team this week" to a member of a team asked to review', async () => {
    h.slack.groups.set('S0BACKEND', [ASKER])
    writeConfig(h.dir.path, {
      git_provider: 'github', insights: { enabled: true }, users: { dave: ASKER }, teams: { backend: 'S0BACKEND' },
      mappings: { Codertocat: { '*': { channel: CHANNEL } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...h.database.env,
    }), { clock: () => NOW })
    const [opened, ...rest] = github()
    opened!.payload.pull_request.requested_teams = [{ id: 1, node_id: 'T_1', slug: 'backend', name: 'Backend', description: '', privacy: 'closed', permission: 'pull', url: 'https://api.github.com/teams/1', html_url: 'https://github.com/orgs/Codertocat/teams/backend', members_url: '', repositories_url: '', parent: null }]
    for (const d of [opened!, ...rest]) expect((await deliver(h.service.url, 'github', d)).status).toBe(200)
    expect(await h.service.settle(10_000)).toBe(true)
    expect((await sendSignedSlack(h.service.url, '/webhook/slack/events', homeOpened(ASKER, 'EvHome'))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.views.has(ASKER))
    const text = JSON.stringify(h.slack.views.get(ASKER))
    expect(text).toContain('*Your team this week*')
    expect(text).toContain('*backend* — 1 merged')
    expect(text).toContain('• first review: p50 3.0 h (2.7 d), p90 3.0 h (2.7 d), 1 PR')
  })

  it('keeps nothing and says so when insights are off', async () => {
    await start(HOSTS[0]!, false)
    expect(await stats('stats')).toMatch(/^Turnaround figures are off here/)
  })
})
