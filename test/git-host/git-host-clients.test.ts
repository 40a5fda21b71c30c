import { afterEach, describe, expect, it } from 'vitest'
import { isPrheraldError, type PrheraldError } from '../../src/errors.ts'
import { createBitbucketClient } from '../../src/hosts/bitbucket/client.ts'
import { createGithubClient, githubCall } from '../../src/hosts/github/client.ts'
import { BITBUCKET_SCOPES } from '../../src/hosts/git-host-error.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { sendJson, startHttpFake, type HttpFake } from '../helpers/http-fake.ts'

async function failure(run: () => Promise<unknown>): Promise<PrheraldError> {
  const error = await run().then(() => undefined, (e: unknown) => e)
  if (!isPrheraldError(error)) throw new Error(`expected a PrheraldError, got ${String(error)}`)
  return error
}

describe('Bitbucket client', () => {
  let bitbucket: FakeBitbucket
  afterEach(async () => bitbucket?.close())

  it('sends Bearer without an email and HTTP Basic email:token with one', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.hooks.set('ws/repo', [])
    await createBitbucketClient({ baseUrl: bitbucket.url, token: 'tok' }).get('/repositories/ws/repo/hooks')
    await createBitbucketClient({ baseUrl: bitbucket.url, token: 'tok', authEmail: 'ops@example.com' }).get('/repositories/ws/repo/hooks')
    expect(bitbucket.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer tok',
      `Basic ${Buffer.from('ops@example.com:tok').toString('base64')}`,
    ])
  })

  it('reports a 401 as a scheme/token mismatch, for each scheme', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.auth = { basic: { email: 'ops@example.com', token: 'tok' } }
    const bearer = await failure(() => createBitbucketClient({ baseUrl: bitbucket.url, token: 'tok' }).get('/repositories/ws/repo/hooks'))
    expect(bearer.code).toBe('git_host_auth')
    expect(bearer.fix).toMatch(/scoped API token needs BITBUCKET_AUTH_EMAIL/)

    bitbucket.auth = { bearer: 'tok' }
    const basic = await failure(() => createBitbucketClient({ baseUrl: bitbucket.url, token: 'tok', authEmail: 'ops@example.com' }).get('/repositories/ws/repo/hooks'))
    expect(basic.code).toBe('git_host_auth')
    expect(basic.fix).toMatch(/access token must be used without BITBUCKET_AUTH_EMAIL/)
  })

  it('reports a 403 as missing scopes, naming the scopes of the token kind in use', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.forbidden = [/hooks$/]
    const access = await failure(() => createBitbucketClient({ baseUrl: bitbucket.url, token: 'tok' }).get('/repositories/ws/repo/hooks'))
    expect(access.code).toBe('git_host_scope')
    expect(access.fix).toContain(BITBUCKET_SCOPES.accessToken)
    const api = await failure(() => createBitbucketClient({ baseUrl: bitbucket.url, token: 'tok', authEmail: 'a@b.c' }).get('/repositories/ws/repo/hooks'))
    expect(api.fix).toContain(BITBUCKET_SCOPES.apiToken)
  })

  it('follows next links across pages', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.pagelen = 2
    bitbucket.repos.set('ws', ['a', 'b', 'c', 'd', 'e'])
    const repos = await createBitbucketClient({ baseUrl: bitbucket.url, token: 'tok' }).paginate<{ slug: string }>('/repositories/ws')
    expect(repos.map((r) => r.slug)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(bitbucket.requests).toHaveLength(3)
  })
})

describe('Bitbucket client: next links', () => {
  let api: HttpFake | undefined
  let elsewhere: HttpFake | undefined
  afterEach(async () => {
    await api?.close()
    await elsewhere?.close()
  })

  it('follows a next link only on the configured API host, never sending the token elsewhere', async () => {
    elsewhere = await startHttpFake((_, res) => sendJson(res, 200, { values: [{ slug: 'stolen' }] }))
    api = await startHttpFake((_, res) => sendJson(res, 200, { values: [{ slug: 'a' }], next: `${elsewhere!.url}/repositories/ws?page=2` }))
    const error = await failure(() => createBitbucketClient({ baseUrl: api!.url, token: 'tok' }).paginate('/repositories/ws'))
    expect(error.code).toBe('git_host')
    expect(error.message).toContain('outside BITBUCKET_API_URL')
    expect(elsewhere.requests).toHaveLength(0)
  })
})

describe('GitHub client', () => {
  let github: FakeGithub
  afterEach(async () => github?.close())

  it('sends the token as Bearer to GITHUB_API_URL and paginates by Link header', async () => {
    github = await startFakeGithub()
    github.token = 'ghp_x'
    github.pullFiles.set('acme/api#7', Array.from({ length: 150 }, (_, i) => `f${i}.ts`))
    const octokit = createGithubClient({ baseUrl: github.url, token: 'ghp_x' })
    const files = await githubCall(octokit, 'list files', () =>
      octokit.paginate(octokit.rest.pulls.listFiles, { owner: 'acme', repo: 'api', pull_number: 7, per_page: 100 }))
    expect(files).toHaveLength(150)
    expect(github.requests).toHaveLength(2)
    expect(github.requests[0]!.headers.authorization).toMatch(/^(bearer|token) ghp_x$/i)
  })

  it('maps 401, 403, 404 and a spent rate limit to codes with a fix', async () => {
    github = await startFakeGithub()
    github.token = 'right'
    const wrong = createGithubClient({ baseUrl: github.url, token: 'wrong' })
    const list = (octokit = wrong) => githubCall(octokit, 'GET hooks', () => octokit.rest.repos.listWebhooks({ owner: 'acme', repo: 'api' }))
    expect((await failure(list)).code).toBe('git_host_auth')
    const right = createGithubClient({ baseUrl: github.url, token: 'right' })
    expect((await failure(() => list(right))).code).toBe('git_host_not_found')
    github.failures.push({ path: /hooks$/, status: 403, times: 1 })
    const scope = await failure(() => list(right))
    expect(scope.code).toBe('git_host_scope')
    expect(scope.fix).toMatch(/admin:repo_hook/)
    github.failures.push({ path: /hooks$/, status: 403, times: 1, headers: { 'x-ratelimit-remaining': '0' } })
    expect((await failure(() => list(right))).code).toBe('git_host')
  })
})
