import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { createCallLimit } from '../../src/worker/call-limit.ts'
import { createSlackPacer } from '../../src/slack/slack-pacer.ts'
import { github as githubHost } from '../../src/hosts/github/index.ts'
import { gitlab as gitlabHost } from '../../src/hosts/gitlab/index.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createEmailLookup, LOOKUP_TTL_MS } from '../../src/people/email-lookup.ts'
import { lookedUpPeople } from '../../src/people/resolve-people.ts'
import { createSlackClient } from '../../src/slack/slack-client.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeGitlab } from '../helpers/fake-gitlab.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** slack.lookup_users_by_email against the fake GitHub and fake Slack, cached in a real SQLite file. */
let dir: ReturnType<typeof makeTempDir>
let github: FakeGithub
let slack: FakeSlack
let store: Store
let clock: number
const lines: string[] = []
const shutdown = new AbortController()

beforeEach(async () => {
  dir = makeTempDir()
  github = await startFakeGithub()
  slack = await startFakeSlack()
  slack.scopes.push('users:read.email')
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  store = createSqliteStore(db)
  clock = Date.UTC(2026, 10, 23, 12)
  lines.length = 0
})
afterEach(async () => {
  await store.close()
  await github.close()
  await slack.close()
  dir.remove()
})

function lookup(emailOf = githubHost.connect({ token: 'ghp_test', extra: {}, scheme: undefined }, github.url)!.emailOf!) {
  const logger = createLogger({ format: 'json', level: 'info', write: (line: string) => lines.push(line) })
  return createEmailLookup({
    provider: 'github', store, logger, now: () => clock,
    emailOf,
    slack: createSlackClient({ token: TEST_SLACK_TOKEN, apiUrl: slack.url.endsWith('/') ? slack.url : `${slack.url}/`, logger, retry: { retries: 0 } }),
    pacer: createSlackPacer({ pacing: 'off', parallel: 2, signal: shutdown.signal }),
    limit: createCallLimit(2, shutdown.signal),
  })
}
const githubCalls = () => github.requests.filter((r) => r.path.startsWith('/users/')).length
const warnings = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'warn')

describe('createEmailLookup', () => {
  it('finds the Slack user by the public email, once: the answer is cached until it expires', async () => {
    github.users.set('OctoCat', { email: 'octo@example.com' })
    slack.usersByEmail.set('octo@example.com', 'U0OCTO')
    const find = lookup()
    expect(await find('octocat')).toBe('U0OCTO')
    expect(await find('OCTOCAT')).toBe('U0OCTO')
    expect(githubCalls()).toBe(1)
    expect(slack.count('users.lookupByEmail')).toBe(1)
    expect(await store.findPersonLookup('github', 'octocat')).toEqual({ provider: 'github', login: 'octocat', outcome: 'found', slackUserId: 'U0OCTO', expiresAt: clock + LOOKUP_TTL_MS.found })

    clock += LOOKUP_TTL_MS.found + 1
    slack.usersByEmail.set('octo@example.com', 'U0NEW')
    expect(await find('octocat')).toBe('U0NEW')
    expect(githubCalls()).toBe(2)
  })

  it('caches "not found" for a hidden email (no Slack call), an unknown email and an unknown login', async () => {
    github.users.set('hidden', { email: null })
    github.users.set('stranger', { email: 'stranger@example.com' })
    const find = lookup()
    expect(await find('hidden')).toBeUndefined()
    expect(await find('stranger')).toBeUndefined()
    expect(await find('ghost')).toBeUndefined()
    expect(slack.count('users.lookupByEmail')).toBe(1)
    expect((await store.findPersonLookup('github', 'ghost'))?.outcome).toBe('not_found')
    await find('hidden')
    expect(githubCalls()).toBe(3)
    expect(warnings()).toEqual([])
  })

  it('a failed look-up answers plain text, logs one warning without the email, and is not retried within the hour', async () => {
    github.users.set('octocat', { email: 'octo@example.com' })
    slack.scopes = slack.scopes.filter((s) => s !== 'users:read.email')
    const find = lookup()
    expect(await find('octocat')).toBeUndefined()
    expect(await find('octocat')).toBeUndefined()
    expect(slack.count('users.lookupByEmail')).toBe(1)
    expect(warnings()).toHaveLength(1)
    expect(warnings()[0]).toMatchObject({ msg: 'person lookup by email failed; shown as plain text', login: 'octocat', step: 'slack', error_code: 'slack_permanent' })
    expect(String(warnings()[0]!.fix)).toContain('users:read.email')
    expect(lines.join('\n')).not.toContain('octo@example.com')

    github.failures.push({ path: /^\/users\//, status: 500, times: 5 })
    clock += LOOKUP_TTL_MS.failed + 1
    expect(await find('octocat')).toBeUndefined()
    expect(warnings().at(-1)).toMatchObject({ step: 'git_host', error_code: expect.any(String) })
  })

  it('resolves everyone the message names that users: does not map, never bots', async () => {
    github.users.set('carol', { email: 'carol@example.com' })
    slack.usersByEmail.set('carol@example.com', 'U0CAROL')
    const resolve = lookedUpPeople({ people: { users: { bob: 'U0BOB' }, teams: {} }, lookup: lookup() })
    const context = {
      provider: 'github' as const, owner: 'acme', repo: 'api', number: 1, title: 't', url: 'u', author: 'bob', createdAt: '', reactions: [],
      approvedBy: ['Carol', 'ci[bot]'], changesRequestedBy: [], commentCount: 0, botReviewers: [],
    }
    const people = await resolve({ state: 'open', context }, {})
    expect(people.users).toEqual({ carol: 'U0CAROL', bob: 'U0BOB' })
    expect(github.requests.map((r) => r.path)).toEqual(['/users/carol']) // logins ignore case; the cache key is lower-cased
  })

  it('on GitLab, finds the user by username, then their public_email; one without a public email is not found', async () => {
    const gitlab = await startFakeGitlab()
    try {
      gitlab.token = 'glpat-people'
      gitlab.users.push({ id: 41, username: 'Alice.Dev', public_email: 'alice@example.com' }, { id: 42, username: 'quiet', public_email: '' })
      slack.usersByEmail.set('alice@example.com', 'U0ALICE')
      const find = lookup(gitlabHost.connect({ token: 'glpat-people', extra: {}, scheme: undefined }, gitlab.url)!.emailOf!)
      expect(await find('alice.dev')).toBe('U0ALICE')
      expect(await find('quiet')).toBeUndefined()
      expect(await find('nobody')).toBeUndefined()
      expect(gitlab.requests.map((r) => `${r.path}${r.query.size ? `?${r.query}` : ''}`)).toEqual([
        '/api/v4/users?username=alice.dev', '/api/v4/users/41', '/api/v4/users?username=quiet', '/api/v4/users/42', '/api/v4/users?username=nobody',
      ])
      expect(slack.count('users.lookupByEmail')).toBe(1)
      expect(warnings()).toEqual([])
    } finally {
      await gitlab.close()
    }
  })
})
