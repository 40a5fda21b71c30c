import pg from 'pg'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { MANIFEST_SCOPES } from '../helpers/fake-slack.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { useReplicaSet } from '../helpers/replica-set.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * `assign:`'s once-only promise with real prherald-server processes on one PostgreSQL database: both replicas
 * take the announcement, the one holding it is SIGKILLed while its review request is in flight (claimed,
 * not yet answered, nothing committed), and the other carries out that same decision: one assignment row, the
 * same reviewer asked, one line in the thread.
 */
const set = useReplicaSet({ backend: 'postgres' })
const CHANNEL = 'C0000000001'
const PEOPLE = { dave: 'U0DAVE0001', erin: 'U0ERIN0001', frank: 'U0FRANK001' }
let github: FakeGithub

beforeEach(async () => {
  github = await startFakeGithub()
  github.teamMembers.set('Codertocat/backend', ['Codertocat', 'dave', 'erin', 'frank'])
  // What start-up validation reads with a token: the owner's repositories and a webhook sending every event.
  github.repos.set('Codertocat', ['Hello-World'])
  github.hooks.set('Codertocat/Hello-World', [{ id: 1, name: 'web', active: true, events: ['*'], config: { url: 'https://prherald.example.com/webhook/github', content_type: 'json', insecure_ssl: '0' } }])
})
afterEach(async () => {
  await set().stop()
  await github.close()
})

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: set().database.url })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

it('one assignment with two replicas and a SIGKILL in the middle', async () => {
  const { dir, slack } = set()
  slack.scopes.push(...MANIFEST_SCOPES)
  for (const id of Object.values(PEOPLE)) slack.users.set(id, { realName: id })
  writeConfig(dir.path, {
    git_provider: 'github', server: { log_format: 'json', shutdown_timeout_seconds: 1 }, database: { lease_seconds: 1 },
    users: PEOPLE, teams: { backend: 'S0BACKEND1' },
    mappings: { Codertocat: { '*': { channel: CHANNEL, assign: { team: 'backend' } } } },
  })
  const env = set().env('github', { GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_test' })
  const [a, b] = [await set().spawn(env), await set().spawn(env)]
  let release!: () => void
  github.reviewRequestHolds.push(new Promise<void>((resolve) => { release = resolve }))

  // The same delivery to both: the first one takes it, the other's is a duplicate of a pending delivery.
  const payload = pullRequest('opened', 2)
  Object.assign(payload.pull_request, { requested_reviewers: [], requested_teams: [] })
  expect((await deliver(a.url, 'github', { event: 'pull_request', payload, deliveryId: 'assign-once' })).status).toBe(200)
  expect((await deliver(b.url, 'github', { event: 'pull_request', payload, deliveryId: 'assign-once' })).status).toBe(200)
  await waitFor('a review request in flight', () => github.reviewRequests.has('Codertocat/Hello-World#2'), 20_000)
  // The replica holding the pull request posted its message and is waiting on the host.
  const holders = [a, b].filter((r) => r.entries().some((e) => e.msg === 'slack message changed'))
  expect(holders).toHaveLength(1)
  const holder = holders[0]!
  const other = holder === a ? b : a
  holder.child.kill('SIGKILL')
  expect(await holder.exited).toEqual({ code: null, signal: 'SIGKILL' })
  release()

  await waitFor('the survivor carries the assignment out', async () =>
    (await query<{ n: string }>('SELECT count(*) AS n FROM review_assignments WHERE requested_at IS NOT NULL'))[0]!.n === '1', 30_000)
  const rows = await query<{ reviewers: string }>('SELECT reviewers FROM review_assignments')
  expect(rows).toEqual([{ reviewers: '["dave"]' }])
  // Asked once by the victim (cut off) and again by the survivor: the same decision, never a second reviewer.
  const bodies = github.reviewRequests.get('Codertocat/Hello-World#2')!
  expect(bodies).toHaveLength(2)
  expect(new Set(bodies.map((body) => JSON.stringify(body)))).toEqual(new Set([JSON.stringify({ reviewers: ['dave'] })]))
  await waitFor('the line in the thread', () => {
    const [message] = slack.messagesIn(CHANNEL)
    return message !== undefined && slack.repliesTo(CHANNEL, message.ts).length > 0
  }, 20_000)
  expect(slack.messagesIn(CHANNEL)).toHaveLength(1)
  const [message] = slack.messagesIn(CHANNEL)
  expect(slack.repliesTo(CHANNEL, message!.ts).map((r) => r.text)).toEqual([`Assigned <@${PEOPLE.dave}> (round robin)`])
  expect(other.entries().some((e) => e.msg === 'reviewers assigned')).toBe(true)
}, 90_000)
