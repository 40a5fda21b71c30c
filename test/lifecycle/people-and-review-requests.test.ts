import { describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { startFakeGithub } from '../helpers/fake-github.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { bitbucketPayload, type BitbucketFacts } from './bitbucket-payloads.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Issue 14.1 and the status half of 14.2, end to end: `users:` / `teams:` as mentions, and who the pull
 * request is waiting on, through the real server, real SQLite and a fake Slack, with signed deliveries of
 * GitHub's example payloads (Codertocat/Hello-World) and Bitbucket payloads as Atlassian documents them.
 */
const TEAM = 'C0000000001'

const h = usePrherald()

async function start(provider: Provider, people: Record<string, unknown>, env: Record<string, string> = {}): Promise<void> {
  const mappings = provider === 'github'
    ? { Codertocat: { 'Hello-World': { channel: TEAM } } }
    : { acme: { api: { channel: TEAM } } }
  writeConfig(h.dir.path, { git_provider: provider, mappings, ...people } as never)
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url, ...env }))
}

interface Step { event: string; payload: unknown; deliveryId?: string }

async function send(provider: Provider, ...steps: Step[]): Promise<void> {
  for (const step of steps) {
    const res = await deliver(h.service!.url, provider, step)
    expect(res.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  }
}

/** The one message's context and status lines, as Slack holds them now. */
function shown(): { context: string; status: string } {
  const messages = h.slack.messagesIn(TEAM)
  expect(messages).toHaveLength(1)
  const [, context, status] = messages[0]!.blocks as [unknown, { elements: { text: string }[] }, { text: { text: string } }]
  return { context: context.elements[0]!.text, status: status.text.text }
}

// Deep, loosely typed example JSON, as in github-payloads.ts.
type Json = Record<string, any>
const T = (second: number) => `2026-11-21T10:00:${String(second).padStart(2, '0')}Z`

/** GitHub's own review_requested / review_request_removed example, for a user or a team, with the full lists it carries. */
function request(action: 'review_requested' | 'review_request_removed', who: { user: string } | { team: string }, list: { users?: string[]; teams?: string[] }, at: number): Step {
  const payload = githubExample('pull_request', action) as Json
  const person = (login: string) => ({ ...payload.requested_reviewer, login })
  const team = (slug: string) => ({ name: `${slug} team`, id: 7, node_id: 'T_7', slug, description: null, privacy: 'closed', url: '', html_url: '', members_url: '', repositories_url: '', permission: 'pull' })
  delete payload.requested_reviewer
  if ('user' in who) payload.requested_reviewer = person(who.user)
  else payload.requested_team = team(who.team)
  Object.assign(payload.pull_request, {
    number: 7, html_url: 'https://github.com/Codertocat/Hello-World/pull/7', draft: false, updated_at: T(at),
    requested_reviewers: (list.users ?? []).map(person), requested_teams: (list.teams ?? []).map(team),
  })
  payload.number = 7
  return { event: 'pull_request', payload }
}

function opened(at = 0): Step {
  const payload = pullRequest('opened', 7)
  payload.pull_request.updated_at = T(at)
  return { event: 'pull_request', payload }
}

function reviewed(state: 'approved' | 'commented', reviewer: string, at: number, stillRequested: string[], teams: string[] = []): Step {
  const payload = review(state, 7, reviewer)
  payload.pull_request.updated_at = T(at)
  payload.pull_request.requested_reviewers = stillRequested.map((login) => ({ ...payload.review.user, login }))
  payload.pull_request.requested_teams = teams.map((slug) => ({ name: slug, id: 7, slug }))
  return { event: 'pull_request_review', payload }
}

describe('GitHub: people as Slack users, and who is waited on', () => {
  const people = { users: { codertocat: 'U0CODER', OctoCat: 'U0OCTO' }, teams: { backend: 'S0BACK' } }

  it('mentions mapped people and leaves unmapped ones plain; a review clears only its own reviewer', async () => {
    await start('github', people)
    await send('github', opened())
    // The author is mapped (case ignored), so the context line mentions them.
    expect(shown().context).toMatch(/^Codertocat\/Hello-World · <@U0CODER> · opened /)
    expect(shown().status).toBe('Open')

    await send('github',
      request('review_requested', { user: 'octocat' }, { users: ['octocat'] }, 1),
      request('review_requested', { user: 'dave' }, { users: ['octocat', 'dave'] }, 2),
      request('review_requested', { team: 'backend' }, { users: ['octocat', 'dave'], teams: ['backend'] }, 3))
    expect(shown().status).toBe('Waiting on <@U0OCTO>, dave, <!subteam^S0BACK>')

    // dave's review (GitHub drops him from the list it sends) clears dave alone.
    await send('github', reviewed('commented', 'dave', 4, ['octocat'], ['backend']))
    expect(shown().status).toBe('Waiting on <@U0OCTO>, <!subteam^S0BACK> · 1 comment')
    await send('github', reviewed('approved', 'octocat', 5, [], ['backend']))
    expect(shown().status).toBe('Approved by <@U0OCTO> · Waiting on <!subteam^S0BACK> · 1 comment')
    // One message in the channel; the mapped reviewer and team were pinged in its thread (notify.review_requests
    // defaults to thread), the unmapped dave was not.
    const [message] = h.slack.messagesIn(TEAM)
    expect(h.slack.messagesIn(TEAM)).toHaveLength(1)
    expect(h.slack.repliesTo(TEAM, message!.ts).map((r) => r.text).join('\n')).toMatch(/<@U0OCTO>[\s\S]*<!subteam\^S0BACK>/)
    expect(h.slack.repliesTo(TEAM, message!.ts)).toHaveLength(2)
  })

  it('a removal clears the reviewer or team', async () => {
    await start('github', people)
    await send('github', opened(),
      request('review_requested', { team: 'backend' }, { users: ['octocat'], teams: ['backend'] }, 1))
    expect(shown().status).toBe('Waiting on <@U0OCTO>, <!subteam^S0BACK>')
    await send('github', request('review_request_removed', { team: 'backend' }, { users: ['octocat'] }, 2))
    expect(shown().status).toBe('Waiting on <@U0OCTO>')
    await send('github', request('review_request_removed', { user: 'octocat' }, {}, 3))
    expect(shown().status).toBe('Open')
  })

  it('out of order, the same deliveries end in the same message as in order', async () => {
    const steps = [
      opened(0),
      request('review_requested', { user: 'octocat' }, { users: ['octocat'] }, 1),
      request('review_requested', { user: 'dave' }, { users: ['octocat', 'dave'] }, 2),
      request('review_request_removed', { user: 'octocat' }, { users: ['dave'] }, 3),
    ]
    await start('github', people)
    // The newest first: the older request of octocat, arriving last, must not bring him back.
    await send('github', steps[3]!, steps[2]!, steps[0]!, steps[1]!)
    expect(shown().status).toBe('Waiting on dave')
    const shuffled = shown()
    await h.fresh()
    await start('github', people)
    await send('github', ...steps)
    expect(shown()).toEqual(shuffled)
  })

  it('a repeated delivery (same id) is ignored: one update, the same status', async () => {
    await start('github', people)
    await send('github', opened())
    const step = { ...request('review_requested', { user: 'octocat' }, { users: ['octocat'] }, 1), deliveryId: 'redelivered-1' }
    await send('github', step, step)
    expect(shown().status).toBe('Waiting on <@U0OCTO>')
    expect(h.slack.count('chat.update')).toBe(1)
    expect(h.service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === 'duplicate_delivery')).toHaveLength(1)
  })

  it('a review request announces a ready pull request that has no message yet', async () => {
    await start('github', people)
    await send('github', request('review_requested', { user: 'octocat' }, { users: ['octocat'] }, 1))
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect(shown().status).toBe('Waiting on <@U0OCTO>')
  })
})

describe('GitHub: h.slack.lookup_users_by_email', () => {
  it('finds unmapped people by public email once (cached), and shows a failed look-up as plain text without failing the delivery', async () => {
    const github = await startFakeGithub()
    try {
      github.users.set('octocat', { email: 'octo@example.com' })
      github.users.set('erin', { email: 'erin@example.com' })
      github.failures.push({ path: /^\/users\/dave$/, status: 500, times: 10 })
      h.slack.scopes.push('users:read.email')
      h.slack.usersByEmail.set('octo@example.com', 'U0FOUND')
      await start('github', { slack: { lookup_users_by_email: true }, users: { codertocat: 'U0CODER' } }, { GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_people' })
      await send('github', opened(),
        request('review_requested', { user: 'octocat' }, { users: ['octocat', 'dave', 'erin'] }, 1))
      // octocat found by email; dave's look-up failed (GitHub 500); erin's email is nobody's in Slack.
      expect(shown().status).toBe('Waiting on <@U0FOUND>, dave, erin')
      expect(shown().context).toContain('<@U0CODER>')
      await send('github', reviewed('approved', 'octocat', 2, ['dave', 'erin']))
      expect(shown().status).toBe('Approved by <@U0FOUND> · Waiting on dave, erin')

      // users: is never looked up; each other person once, whatever the number of deliveries.
      const paths = github.requests.map((r) => r.path).filter((p) => p.startsWith('/users/'))
      expect(paths.sort()).toEqual(['/users/dave', '/users/erin', '/users/octocat'])
      expect(h.slack.count('users.lookupByEmail')).toBe(2)
      const warned = h.service!.entries().filter((e) => e.msg === 'person lookup by email failed; shown as plain text')
      expect(warned).toEqual([expect.objectContaining({ level: 'warn', login: 'dave', step: 'git_host' })])
      expect(h.service!.logs.join('\n')).not.toMatch(/@example\.com/)
    } finally {
      await github.close()
    }
  })
})

describe('Bitbucket: people by account id, and the reviewer list', () => {
  // The payload builder gives each person the account id 557058:<nickname>.
  const people = { users: { '557058:carol': 'U0CAROL', '557058:bob': 'U0BOB' } }
  const at = (second: number) => `2026-11-21T10:00:${String(second).padStart(2, '0')}.000000+00:00`
  const bb = (key: string, facts: Omit<BitbucketFacts, 'id'>): Step => ({ event: key, payload: bitbucketPayload(key, { id: 7, ...facts }) })

  it('created with reviewers waits on them; an approver is not waited on; an updated list replaces the set', async () => {
    await start('bitbucket', people)
    await send('bitbucket', bb('pullrequest:created', { actor: 'bob', reviewers: ['carol', 'dave'], updatedOn: at(1) }))
    expect(shown().context).toMatch(/^acme\/api · <@U0BOB> · opened /)
    expect(shown().status).toBe('Waiting on <@U0CAROL>, dave')

    await send('bitbucket', bb('pullrequest:approved', { actor: 'carol', reviewers: ['carol', 'dave'], verdicts: { carol: 'approved' }, updatedOn: at(2) }))
    expect(shown().status).toBe('Approved by <@U0CAROL> · Waiting on dave')

    // dave taken off, erin added: a push-like `updated` that changed only the reviewers edits the message.
    await send('bitbucket', bb('pullrequest:updated', { actor: 'bob', reviewers: ['carol', 'erin'], verdicts: { carol: 'approved' }, updatedOn: at(3) }))
    expect(shown().status).toBe('Approved by <@U0CAROL> · Waiting on erin')

    // A stale `updated` (older time) that still lists dave changes nothing.
    const updates = h.slack.count('chat.update')
    await send('bitbucket', bb('pullrequest:updated', { actor: 'bob', reviewers: ['carol', 'dave'], updatedOn: at(1) }))
    expect(shown().status).toBe('Approved by <@U0CAROL> · Waiting on erin')
    expect(h.slack.count('chat.update')).toBe(updates)
  })
})
