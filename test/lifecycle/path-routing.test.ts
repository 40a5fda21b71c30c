import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeGitlab, type FakeGitlab } from '../helpers/fake-gitlab.ts'
import { mergeRequestHook, type GitlabFacts } from '../helpers/gitlab-fixtures.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { bitbucketPayload, type BitbucketFacts } from './bitbucket-payloads.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const REPO = 'C0000000REPO'
const BILLING = 'C00000BILLING'
const AUTH = 'C000000AUTH'
const paths = {
  'services/billing/': { channel: BILLING, mentions: ['<@U0BILL>'] },
  // Written without the trailing slash on purpose: both spellings name the directory.
  'services/auth': { channel: AUTH, mentions: ['<@U0AUTH>', '<!subteam^S0SEC>'] },
}
const range = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i))

const h = usePrherald()
let github: FakeGithub | undefined
let bitbucket: FakeBitbucket | undefined
let gitlab: FakeGitlab | undefined

afterEach(async () => {
  await github?.close()
  await bitbucket?.close()
  await gitlab?.close()
  github = bitbucket = gitlab = undefined
})

async function start(provider: Provider, owner: string, repo: string, env: Env): Promise<TestService> {
  writeConfig(h.dir.path, { git_provider: provider, mappings: { [owner]: { [repo]: { channel: REPO, mentions: ['<@U0REPO>'], paths } } } })
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url, ...env }))
  return h.service!
}

const settle = async () => expect(await h.service!.settle(10_000)).toBe(true)
const blocks = (channel: string) => h.slack.messagesIn(channel).map((m) => JSON.stringify(m.blocks))
const logged = (msg: string | RegExp) => h.service!.entries().filter((e) => typeof e.msg === 'string' && (typeof msg === 'string' ? e.msg === msg : msg.test(e.msg)))

async function sendGithub(event: string, payload: unknown): Promise<void> {
  expect((await deliver(h.service!.url, 'github', { event, payload })).status).toBe(200)
  await settle()
}
async function sendBitbucket(key: string, facts: BitbucketFacts): Promise<void> {
  const res = await deliver(h.service!.url, 'bitbucket', { event: `pullrequest:${key}`, payload: bitbucketPayload(`pullrequest:${key}`, facts) })
  expect(res.status).toBe(200)
  await settle()
}

describe('path routing on GitHub', () => {
  const githubEnv = () => ({ GITHUB_API_URL: github!.url, GITHUB_TOKEN: 'ghp_pathrouting' })

  beforeEach(async () => {
    github = await startFakeGithub()
    github.token = 'ghp_pathrouting'
  })

  it('posts one message per matched channel across two pages of files, and later events update and react on each', async () => {
    // 150 files: two pages at per_page 100, with the auth file on the second page.
    github!.pullFiles.set('Codertocat/Hello-World#5', [
      ...range(148, (i) => `services/billing/src/f${i}.ts`), 'README.md', 'services/auth/login.ts',
    ])
    await start('github', 'Codertocat', 'Hello-World', githubEnv())
    await sendGithub('pull_request', pullRequest('opened', 5, { title: 'Split billing from auth' }))

    expect(github!.requests).toHaveLength(2)
    expect(github!.requests.map((r) => r.path)).toEqual(Array(2).fill('/repos/Codertocat/Hello-World/pulls/5/files'))
    expect(h.slack.messagesIn(REPO)).toHaveLength(0)
    expect(h.slack.messagesIn(BILLING)).toHaveLength(1)
    expect(h.slack.messagesIn(AUTH)).toHaveLength(1)
    expect(blocks(BILLING)[0]).toContain('<@U0BILL>')
    expect(blocks(BILLING)[0]).not.toContain('<@U0REPO>')
    expect(blocks(AUTH)[0]).toContain('<!subteam^S0SEC>')
    expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.body.channel)).toEqual([BILLING, AUTH])

    // Files changing after the announcement do not move the pull request.
    github!.pullFiles.set('Codertocat/Hello-World#5', ['README.md'])
    await sendGithub('pull_request_review', review('approved', 5, 'carol'))
    await sendGithub('pull_request', pullRequest('closed', 5, { merged: true, title: 'Split billing from auth' }))

    expect(github!.requests).toHaveLength(2)
    expect(h.slack.count('chat.postMessage')).toBe(2)
    for (const channel of [BILLING, AUTH]) {
      const [message] = h.slack.messagesIn(channel)
      expect(message!.updates).toBe(2)
      expect([...message!.reactions].sort()).toEqual(['twisted_rightwards_arrows', 'white_check_mark'])
      expect(JSON.stringify(message!.blocks)).toContain('[Merged]')
    }
    expect(logged(/path rules are inert/)).toHaveLength(0)
  })

  it('uses the repository channel and its mentions when no changed file matches a rule', async () => {
    github!.pullFiles.set('Codertocat/Hello-World#6', ['README.md', 'services/billing-v2/api.ts'])
    await start('github', 'Codertocat', 'Hello-World', githubEnv())
    await sendGithub('pull_request', pullRequest('opened', 6))
    expect(github!.requests).toHaveLength(1)
    expect(h.slack.messagesIn(BILLING)).toHaveLength(0)
    expect(blocks(REPO)).toHaveLength(1)
    expect(blocks(REPO)[0]).toContain('<@U0REPO>')
  })

  it('without GITHUB_TOKEN: one start-up warning, no GitHub calls, the repository channel', async () => {
    github!.pullFiles.set('Codertocat/Hello-World#7', ['services/billing/a.ts'])
    await start('github', 'Codertocat', 'Hello-World', { GITHUB_API_URL: github!.url })
    const warnings = logged(/path rules are inert/)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: 'warn', variable: 'GITHUB_TOKEN', repositories: ['Codertocat/Hello-World'] })

    await sendGithub('pull_request', pullRequest('opened', 7))
    await sendGithub('pull_request', pullRequest('opened', 8))
    expect(github!.requests).toHaveLength(0)
    expect(h.slack.messagesIn(REPO)).toHaveLength(2)
    expect(h.slack.messagesIn(BILLING)).toHaveLength(0)
    expect(logged(/path rules are inert/)).toHaveLength(1)
  })

  it('a GitHub API failure falls back to the repository channel and logs why', async () => {
    github!.pullFiles.set('Codertocat/Hello-World#9', ['services/billing/a.ts'])
    github!.failures.push({ path: /\/pulls\/9\/files$/, status: 500 })
    await start('github', 'Codertocat', 'Hello-World', githubEnv())
    await sendGithub('pull_request', pullRequest('opened', 9))

    expect(h.slack.messagesIn(REPO)).toHaveLength(1)
    expect(h.slack.messagesIn(BILLING)).toHaveLength(0)
    const [fallback, ...more] = logged('path routing fell back to the repository channel')
    expect(more).toHaveLength(0)
    expect(fallback).toMatchObject({ level: 'warn', repository: 'Codertocat/Hello-World', pr: 9, error_code: 'git_host' })
    expect(String(fallback!.error)).toContain('500')
    expect(fallback!.fix).toEqual(expect.any(String))
  })

  it('a token GitHub refuses names the fix in the fallback line', async () => {
    github!.pullFiles.set('Codertocat/Hello-World#10', ['services/billing/a.ts'])
    await start('github', 'Codertocat', 'Hello-World', { GITHUB_API_URL: github!.url, GITHUB_TOKEN: 'ghp_wrong' })
    await sendGithub('pull_request', pullRequest('opened', 10))
    expect(h.slack.messagesIn(REPO)).toHaveLength(1)
    const [fallback] = logged('path routing fell back to the repository channel')
    expect(fallback).toMatchObject({ error_code: 'git_host_auth' })
    expect(String(fallback!.fix)).toContain('GITHUB_TOKEN')
    expect(h.service!.logs.join('\n')).not.toContain('ghp_wrong')
  })

  it('stops listing files at the 3000-file cap', async () => {
    github!.pullFiles.set('Codertocat/Hello-World#11', [
      ...range(3000, (i) => `services/billing/f${i}.ts`), ...range(50, (i) => `services/auth/f${i}.ts`),
    ])
    await start('github', 'Codertocat', 'Hello-World', githubEnv())
    await sendGithub('pull_request', pullRequest('opened', 11))
    expect(github!.requests).toHaveLength(30)
    expect(github!.requests.at(-1)!.query.get('page')).toBe('30')
    expect(h.slack.messagesIn(BILLING)).toHaveLength(1)
    expect(h.slack.messagesIn(AUTH)).toHaveLength(0)
    expect(logged('path routing saw only the first changed files')).toHaveLength(1)
  })
})

describe('path routing on Bitbucket', () => {
  const bitbucketEnv = () => ({ BITBUCKET_API_URL: bitbucket!.url, BITBUCKET_TOKEN: 'bb_access_token' })

  beforeEach(async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.auth = { bearer: 'bb_access_token' }
    bitbucket.pagelen = 2
  })

  it('follows next across diffstat pages, posts per channel, counts a rename under its old path, and updates each', async () => {
    bitbucket!.diffstat.set('acme/api#3', [
      { status: 'modified', old: 'services/billing/a.ts', new: 'services/billing/a.ts' },
      { status: 'added', new: 'docs/intro.md' },
      { status: 'modified', old: 'services/billing/b.ts', new: 'services/billing/b.ts' },
      { status: 'added', new: 'README.md' },
      // Moved out of services/auth: the auth team still hears about it.
      { status: 'renamed', old: 'services/auth/token.ts', new: 'lib/token.ts' },
    ])
    await start('bitbucket', 'acme', 'api', bitbucketEnv())
    await sendBitbucket('created', { id: 3 })

    expect(bitbucket!.requests).toHaveLength(3)
    expect(bitbucket!.requests.every((r) => r.path === '/2.0/repositories/acme/api/pullrequests/3/diffstat')).toBe(true)
    expect(h.slack.messagesIn(REPO)).toHaveLength(0)
    expect(blocks(BILLING)).toHaveLength(1)
    expect(blocks(AUTH)).toHaveLength(1)
    expect(blocks(AUTH)[0]).toContain('<@U0AUTH>')

    await sendBitbucket('approved', { id: 3, actor: 'carol' })
    await sendBitbucket('fulfilled', { id: 3, state: 'MERGED' })
    expect(bitbucket!.requests).toHaveLength(3)
    expect(h.slack.count('chat.postMessage')).toBe(2)
    for (const channel of [BILLING, AUTH]) {
      const [message] = h.slack.messagesIn(channel)
      expect(message!.updates).toBe(2)
      expect([...message!.reactions].sort()).toEqual(['twisted_rightwards_arrows', 'white_check_mark'])
    }
  })

  it('uses HTTP Basic with BITBUCKET_AUTH_EMAIL and falls back to the repository channel when nothing matches', async () => {
    bitbucket!.auth = { basic: { email: 'ops@example.com', token: 'bb_api_token' } }
    bitbucket!.diffstat.set('acme/api#4', [{ status: 'added', new: 'services/billingx/a.ts' }])
    await start('bitbucket', 'acme', 'api', { BITBUCKET_API_URL: bitbucket!.url, BITBUCKET_TOKEN: 'bb_api_token', BITBUCKET_AUTH_EMAIL: 'ops@example.com' })
    await sendBitbucket('created', { id: 4 })
    expect(bitbucket!.requests).toHaveLength(1)
    expect(logged('path routing fell back to the repository channel')).toHaveLength(0)
    expect(blocks(REPO)).toHaveLength(1)
    expect(blocks(REPO)[0]).toContain('<@U0REPO>')
  })

  it('without BITBUCKET_TOKEN: one start-up warning, no Bitbucket calls, the repository channel', async () => {
    bitbucket!.diffstat.set('acme/api#5', [{ status: 'added', new: 'services/billing/a.ts' }])
    await start('bitbucket', 'acme', 'api', { BITBUCKET_API_URL: bitbucket!.url })
    const warnings = logged(/path rules are inert/)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: 'warn', variable: 'BITBUCKET_TOKEN' })
    await sendBitbucket('created', { id: 5 })
    expect(bitbucket!.requests).toHaveLength(0)
    expect(h.slack.messagesIn(REPO)).toHaveLength(1)
    expect(h.slack.messagesIn(BILLING)).toHaveLength(0)
  })

  it('a 403 from Bitbucket falls back to the repository channel and logs the missing scopes', async () => {
    bitbucket!.forbidden = [/diffstat$/]
    bitbucket!.diffstat.set('acme/api#6', [{ status: 'added', new: 'services/billing/a.ts' }])
    await start('bitbucket', 'acme', 'api', bitbucketEnv())
    await sendBitbucket('created', { id: 6 })
    expect(h.slack.messagesIn(REPO)).toHaveLength(1)
    expect(h.slack.messagesIn(BILLING)).toHaveLength(0)
    const [fallback] = logged('path routing fell back to the repository channel')
    expect(fallback).toMatchObject({ repository: 'acme/api', pr: 6, error_code: 'git_host_scope' })
    expect(String(fallback!.fix)).toContain('pullrequest')
  })
})

describe('path routing on GitLab', () => {
  const PROJECT = 'platform/backend/api'
  const TOKEN = 'glpat-pathrouting'
  async function sendGitlab(action: string, facts: Omit<GitlabFacts, 'project'>): Promise<void> {
    const res = await deliver(h.service!.url, 'gitlab', { event: 'Merge Request Hook', payload: mergeRequestHook(action, { ...facts, project: PROJECT }) })
    expect(res.status).toBe(200)
    await settle()
  }

  beforeEach(async () => {
    gitlab = await startFakeGitlab()
    gitlab.token = TOKEN
  })

  it('a nested group\'s merge request: reads every page of its diffs by the URL-encoded path, posts per channel, updates each', async () => {
    gitlab!.diffs.set(`${PROJECT}!3`, [
      ...range(120, (i) => `docs/page-${i}.md`).map((path) => ({ old_path: path, new_path: path, new_file: true })),
      // On the second page of 100 (GitLab's largest).
      { old_path: 'services/billing/a.ts', new_path: 'services/billing/a.ts' },
      // Moved out of services/auth: the auth team still hears about it.
      { old_path: 'services/auth/token.ts', new_path: 'lib/token.ts', renamed_file: true },
    ])
    await start('gitlab', 'platform/backend', 'api', { GITLAB_API_URL: gitlab!.url, GITLAB_TOKEN: TOKEN })
    await sendGitlab('open', { iid: 3 })

    expect(gitlab!.requests.map((r) => [r.path, r.query.get('page') ?? '1'])).toEqual([
      ['/api/v4/projects/platform%2Fbackend%2Fapi/merge_requests/3/diffs', '1'],
      ['/api/v4/projects/platform%2Fbackend%2Fapi/merge_requests/3/diffs', '2'],
    ])
    expect(gitlab!.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true)
    expect(h.slack.messagesIn(REPO)).toHaveLength(0)
    expect(blocks(BILLING)).toHaveLength(1)
    expect(blocks(AUTH)).toHaveLength(1)
    expect(blocks(AUTH)[0]).toContain('<@U0AUTH>')
    expect(blocks(BILLING)[0]).toContain('MR !3')

    await sendGitlab('merge', { iid: 3, state: 'merged' })
    expect(gitlab!.requests).toHaveLength(2)
    for (const channel of [BILLING, AUTH]) {
      expect([...h.slack.messagesIn(channel)[0]!.reactions]).toEqual(['twisted_rightwards_arrows'])
    }
  })

  it('a refused token falls back to the repository channel and names GITLAB_TOKEN', async () => {
    gitlab!.diffs.set(`${PROJECT}!4`, [{ old_path: 'services/billing/a.ts', new_path: 'services/billing/a.ts' }])
    await start('gitlab', 'platform/backend', 'api', { GITLAB_API_URL: gitlab!.url, GITLAB_TOKEN: 'glpat-revoked' })
    await sendGitlab('open', { iid: 4 })
    expect(h.slack.messagesIn(REPO)).toHaveLength(1)
    expect(h.slack.messagesIn(BILLING)).toHaveLength(0)
    const [fallback] = logged('path routing fell back to the repository channel')
    expect(fallback).toMatchObject({ repository: PROJECT, pr: 4, error_code: 'git_host_auth' })
    expect(String(fallback!.fix)).toContain('GITLAB_TOKEN')
  })
})

describe('path routing is not consulted without rules', () => {
  it('a repository without paths posts to its channel with no git-host call, even with a token', async () => {
    github = await startFakeGithub()
    writeConfig(h.dir.path, { git_provider: 'github', mappings: { Codertocat: { 'Hello-World': { channel: REPO } } } })
    await h.start(h.env({ GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_x' }))
    await sendGithub('pull_request', pullRequest('opened', 12))
    expect(github.requests).toHaveLength(0)
    expect(h.slack.messagesIn(REPO)).toHaveLength(1)
  })
})
