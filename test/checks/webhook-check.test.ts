import { afterEach, describe, expect, it } from 'vitest'
import { webhookCheck } from '../../src/checks/webhook-check.ts'
import { validateEntries } from '../../src/checks/validate-entries.ts'
import { BITBUCKET_SCOPES } from '../../src/hosts/git-host-error.ts'
import { GITHUB_OPTIONAL_EVENTS, GITHUB_REQUIRED_EVENTS } from '../../src/hosts/github/events.ts'
import { BITBUCKET_REQUIRED_EVENTS } from '../../src/hosts/bitbucket/events.ts'
import { github as githubHost } from '../../src/hosts/github/index.ts'
import { bitbucket as bitbucketHost } from '../../src/hosts/bitbucket/index.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'

const TOKEN = 'ghp-test-token-3c9e'
let github: FakeGithub | undefined
let bitbucket: FakeBitbucket | undefined
afterEach(async () => {
  await github?.close()
  await bitbucket?.close()
  github = bitbucket = undefined
})

const githubHook = (id: number, url: string, events: string[] = [...GITHUB_REQUIRED_EVENTS, ...GITHUB_OPTIONAL_EVENTS], active = true) =>
  ({ id, name: 'web' as const, active, events, config: { url, content_type: 'json', insecure_ssl: '0' } })
const githubApi = () => githubHost.connect({ token: TOKEN, extra: {}, scheme: undefined }, github!.url)!.webhooks

describe('webhook on GitHub', () => {
  it('SKIPs without GITHUB_TOKEN, calling nothing', async () => {
    expect(await webhookCheck(githubHost, undefined, 'acme', 'api')).toEqual({
      name: 'webhook', target: 'acme/api', status: 'SKIP', reason: 'GITHUB_TOKEN is not set; webhook not checked',
    })
  })

  it('FAILs with the token and no hook ending in /webhook/github, pointing at create-webhook', async () => {
    github = await startFakeGithub()
    github.token = TOKEN
    github.hooks.set('acme/api', [githubHook(1, 'https://ci.example.com/hook')])
    const result = await webhookCheck(githubHost, githubApi(), 'acme', 'api')
    expect(result).toMatchObject({ status: 'FAIL', reason: 'no webhook whose URL ends in /webhook/github (1 other webhook)' })
    expect(result.fix).toContain('prherald-config create-webhook acme/api')
    expect(github.requests[0]).toMatchObject({ method: 'GET', path: '/repos/acme/api/hooks' })
    expect(github.requests[0]!.headers.authorization).toMatch(new RegExp(`^(Bearer|token) ${TOKEN}$`))
  })

  it('FAILs for an inactive hook and for a hook missing events, naming them', async () => {
    github = await startFakeGithub()
    github.hooks.set('acme/api', [githubHook(1, 'https://pr.example.com/webhook/github', [...GITHUB_REQUIRED_EVENTS], false)])
    expect((await webhookCheck(githubHost, githubApi(), 'acme', 'api')).reason).toBe('webhook https://pr.example.com/webhook/github is inactive')
    github.hooks.set('acme/api', [githubHook(2, 'https://pr.example.com/webhook/github', ['pull_request', 'pull_request_review'])])
    const result = await webhookCheck(githubHost, githubApi(), 'acme', 'api')
    expect(result).toMatchObject({ status: 'FAIL', reason: 'webhook https://pr.example.com/webhook/github does not send pull_request_review_comment, issue_comment' })
  })

  it('WARNs (never FAILs) for a hook with every required event but without check_suite and status', async () => {
    github = await startFakeGithub()
    github.hooks.set('acme/api', [githubHook(1, 'https://pr.example.com/webhook/github', [...GITHUB_REQUIRED_EVENTS, 'status'])])
    expect(await webhookCheck(githubHost, githubApi(), 'acme', 'api')).toMatchObject({
      status: 'WARN', reason: 'webhook https://pr.example.com/webhook/github is active with all 4 events, but does not send check_suite (messages show no checks)',
      fix: 'tick those events on the webhook, or run prherald-config create-webhook acme/api to update it',
    })
    github.hooks.set('acme/api', [githubHook(1, 'https://pr.example.com/webhook/github', ['*'])])
    expect((await webhookCheck(githubHost, githubApi(), 'acme', 'api')).status).toBe('OK')
  })

  it('is OK for an active hook with every event, found on a later page', async () => {
    github = await startFakeGithub()
    const others = Array.from({ length: 120 }, (_, i) => githubHook(i + 1, `https://other.example.com/${i}`))
    github.hooks.set('acme/api', [...others, githubHook(500, 'https://pr.example.com/webhook/github/')])
    const result = await webhookCheck(githubHost, githubApi(), 'acme', 'api')
    expect(result).toMatchObject({ status: 'OK', reason: 'webhook https://pr.example.com/webhook/github/ is active with all 6 events' })
    expect(github.requests.length).toBe(2)
  })

  it('falls back to the organisation\'s webhooks, which deliver for every repository in it', async () => {
    github = await startFakeGithub()
    github.hooks.set('acme/api', [githubHook(1, 'https://ci.example.com/hook')])
    github.orgHooks.set('acme', [githubHook(7, 'https://pr.example.com/webhook/github')])
    expect(await webhookCheck(githubHost, githubApi(), 'acme', 'api')).toMatchObject({
      status: 'OK', target: 'acme/api', reason: 'organisation webhook https://pr.example.com/webhook/github is active with all 6 events',
    })
    expect(github.requests.map((r) => r.path)).toEqual(['/repos/acme/api/hooks', '/orgs/acme/hooks'])

    // An organisation hook missing events does not stand in: the repository's own verdict is reported.
    github.orgHooks.set('acme', [githubHook(7, 'https://pr.example.com/webhook/github', ['pull_request'])])
    expect(await webhookCheck(githubHost, githubApi(), 'acme', 'api')).toMatchObject({ status: 'FAIL', reason: 'no webhook whose URL ends in /webhook/github (1 other webhook)' })
  })

  it('keeps the repository\'s FAIL for a personal account (no organisation) and says which permission reads organisation hooks', async () => {
    github = await startFakeGithub()
    github.hooks.set('octocat/api', [])
    const personal = await webhookCheck(githubHost, githubApi(), 'octocat', 'api')
    expect(personal).toMatchObject({ status: 'FAIL', reason: 'no webhook whose URL ends in /webhook/github (the repository has none)' })
    expect(personal.fix).not.toContain('organisation')

    github.hooks.set('acme/api', [])
    github.failures.push({ path: /^\/orgs\/acme\/hooks$/, status: 403 })
    const forbidden = await webhookCheck(githubHost, githubApi(), 'acme', 'api')
    expect(forbidden.status).toBe('FAIL')
    expect(forbidden.fix).toContain('prherald-config create-webhook acme/api')
    expect(forbidden.fix).toContain('admin:org_hook')
  })

  it('surfaces the fix of a 401 and a 404', async () => {
    github = await startFakeGithub()
    github.token = 'another-token'
    const unauthorized = await webhookCheck(githubHost, githubApi(), 'acme', 'api')
    expect(unauthorized).toMatchObject({ status: 'FAIL', reason: 'GitHub answered 401 to GET /repos/acme/api/hooks' })
    expect(unauthorized.fix).toContain('GITHUB_TOKEN is not valid')
    github.token = undefined
    const missing = await webhookCheck(githubHost, githubApi(), 'acme', 'gone')
    expect(missing.fix).toContain('check the owner and repository names')
  })

  it('checks every repository an owner\'s "*" entry covers: organisation, else user, skipping repositories with their own entry', async () => {
    github = await startFakeGithub()
    github.repos.set('acme', ['api', 'web', 'docs', 'site'])
    github.hooks.set('acme/web', [githubHook(1, 'https://pr.example.com/webhook/github')])
    github.hooks.set('acme/docs', [])
    github.hooks.set('acme/site', [])
    github.failures.push({ path: /^\/orgs\/acme\/repos$/, status: 404 })
    const mappings = { acme: { '*': { channel: 'C0000000001' }, API: { channel: 'C0000000002' } } }
    const report = await validateEntries({ host: githubHost, mappings, slack: undefined, git: githubApi() }, [{ owner: 'acme', repo: '*' }])
    const webhooks = report.entries[0]!.results.filter((r) => r.name === 'webhook').map((r) => [r.target, r.status])
    expect(webhooks).toEqual([['acme/web', 'OK'], ['acme/docs', 'FAIL'], ['acme/site', 'FAIL']])
    // The owner's hooks are listed once for the run, not once per repository without a hook.
    expect(github.requests.map((r) => r.path).sort()).toEqual([
      '/orgs/acme/hooks', '/orgs/acme/repos', '/repos/acme/docs/hooks', '/repos/acme/site/hooks', '/repos/acme/web/hooks', '/users/acme/repos',
    ])
  })

  it('SKIPs an owner\'s "*" entry without the token', async () => {
    const report = await validateEntries({ host: githubHost, mappings: { acme: { '*': { channel: 'C0000000001' } } }, slack: undefined, git: undefined }, [{ owner: 'acme', repo: '*' }])
    expect(report.entries[0]!.results.find((r) => r.name === 'webhook')).toMatchObject({
      target: 'acme/*', status: 'SKIP', reason: "GITHUB_TOKEN is not set; acme's repositories not listed, webhooks not checked",
    })
  })
})

describe('webhook on Bitbucket', () => {
  const bbHook = (events: readonly string[]) => ({ uuid: '{1}', url: 'https://pr.example.com/webhook/bitbucket', description: 'prherald', active: true, events: [...events] })
  const api = (authEmail?: string) => bitbucketHost.connect({ token: 'bb-token', extra: { BITBUCKET_AUTH_EMAIL: authEmail }, scheme: undefined }, bitbucket!.url)!.webhooks

  it('is OK with every pullrequest trigger, sending Bearer without BITBUCKET_AUTH_EMAIL and Basic with it', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.hooks.set('ws/repo', [bbHook(BITBUCKET_REQUIRED_EVENTS)])
    bitbucket.auth = { bearer: 'bb-token' }
    expect((await webhookCheck(bitbucketHost, api(), 'ws', 'repo')).status).toBe('OK')
    bitbucket.auth = { basic: { email: 'ops@example.com', token: 'bb-token' } }
    expect((await webhookCheck(bitbucketHost, api('ops@example.com'), 'ws', 'repo')).status).toBe('OK')
    expect(bitbucket.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/2.0/repositories/ws/repo/hooks', 'Bearer bb-token'],
      ['/2.0/repositories/ws/repo/hooks', `Basic ${Buffer.from('ops@example.com:bb-token').toString('base64')}`],
    ])
  })

  it('falls back to the workspace\'s webhooks', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.hooks.set('ws/repo', [])
    bitbucket.workspaceHooks.set('ws', [bbHook(BITBUCKET_REQUIRED_EVENTS)])
    expect(await webhookCheck(bitbucketHost, api(), 'ws', 'repo')).toMatchObject({
      status: 'OK', reason: 'workspace webhook https://pr.example.com/webhook/bitbucket is active with all 9 events',
    })
    expect(bitbucket.requests.map((r) => r.path)).toEqual(['/2.0/repositories/ws/repo/hooks', '/2.0/workspaces/ws/hooks'])
  })

  it('FAILs naming the missing triggers', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.hooks.set('ws/repo', [bbHook(BITBUCKET_REQUIRED_EVENTS.filter((e) => !e.endsWith('unapproved') && !e.endsWith('rejected')))])
    expect((await webhookCheck(bitbucketHost, api(), 'ws', 'repo')).reason)
      .toBe('webhook https://pr.example.com/webhook/bitbucket does not send pullrequest:unapproved, pullrequest:rejected')
  })

  it('reports a 401 as a scheme/token mismatch and a 403 as missing scopes, naming them', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.hooks.set('ws/repo', [])
    bitbucket.auth = { bearer: 'bb-token' }
    const basicMismatch = await webhookCheck(bitbucketHost, api('ops@example.com'), 'ws', 'repo')
    expect(basicMismatch).toMatchObject({ status: 'FAIL', reason: 'Bitbucket answered 401 to GET /2.0/repositories/ws/repo/hooks' })
    expect(basicMismatch.fix).toContain('access token must be used without BITBUCKET_AUTH_EMAIL')
    bitbucket.auth = { basic: { email: 'ops@example.com', token: 'bb-token' } }
    expect((await webhookCheck(bitbucketHost, api(), 'ws', 'repo')).fix).toContain('a scoped API token needs BITBUCKET_AUTH_EMAIL')

    bitbucket.auth = undefined
    bitbucket.forbidden = [/\/hooks$/]
    const forbidden = await webhookCheck(bitbucketHost, api(), 'ws', 'repo')
    expect(forbidden).toMatchObject({ status: 'FAIL', reason: 'Bitbucket answered 403 to GET /2.0/repositories/ws/repo/hooks' })
    expect(forbidden.fix).toContain(BITBUCKET_SCOPES.accessToken)
    expect((await webhookCheck(bitbucketHost, api('ops@example.com'), 'ws', 'repo')).fix).toContain(BITBUCKET_SCOPES.apiToken)
  })

  it('lists a workspace\'s repositories across pages for its "*" entry', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.pagelen = 2
    bitbucket.repos.set('ws', ['a', 'b', 'c'])
    for (const slug of ['a', 'b', 'c']) bitbucket.hooks.set(`ws/${slug}`, [bbHook(BITBUCKET_REQUIRED_EVENTS)])
    const report = await validateEntries({ host: bitbucketHost, mappings: { ws: { '*': { channel: 'C0000000001' } } }, slack: undefined, git: api() }, [{ owner: 'ws', repo: '*' }])
    expect(report.entries[0]!.results.filter((r) => r.name === 'webhook').map((r) => `${r.target} ${r.status}`)).toEqual(['ws/a OK', 'ws/b OK', 'ws/c OK'])
  })
})
