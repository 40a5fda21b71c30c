import { afterEach, describe, expect, it } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { createBitbucketClient } from '../../src/hosts/bitbucket/client.ts'
import { createGithubClient } from '../../src/hosts/github/client.ts'
import { MAX_CHANGED_FILES } from '../../src/hosts/list-changed-files.ts'
import { githubChangedFiles } from '../../src/hosts/github/changed-files.ts'
import { bitbucketChangedFiles } from '../../src/hosts/bitbucket/changed-files.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeGitlab, type FakeGitlab } from '../helpers/fake-gitlab.ts'
import { createGitlabClient } from '../../src/hosts/gitlab/client.ts'
import { gitlabChangedFiles } from '../../src/hosts/gitlab/changed-files.ts'
import { freePort } from '../helpers/free-port.ts'
import { sendJson, startHttpFake, type HttpFake } from '../helpers/http-fake.ts'

const pr = { owner: 'acme', repo: 'api', number: 7 }
const names = (n: number) => Array.from({ length: n }, (_, i) => `src/f${i}.ts`)

describe('GitHub changed files', () => {
  let github: FakeGithub | undefined
  let raw: HttpFake | undefined
  afterEach(async () => {
    await github?.close()
    await raw?.close()
    github = raw = undefined
  })

  it('reads every page at 100 files a page', async () => {
    github = await startFakeGithub()
    github.pullFiles.set('acme/api#7', names(250))
    const files = await githubChangedFiles(createGithubClient({ baseUrl: github.url, token: 't' }))(pr)
    expect(files.map((f) => f.path)).toEqual(names(250))
    expect(github.requests.map((r) => r.query.get('per_page'))).toEqual(['100', '100', '100'])
  })

  it(`stops asking after ${MAX_CHANGED_FILES} files`, async () => {
    github = await startFakeGithub()
    github.pullFiles.set('acme/api#7', names(MAX_CHANGED_FILES + 250))
    const files = await githubChangedFiles(createGithubClient({ baseUrl: github.url, token: 't' }))(pr)
    expect(files).toHaveLength(MAX_CHANGED_FILES)
    expect(github.requests).toHaveLength(MAX_CHANGED_FILES / 100)
  })

  it('keeps previous_filename of a rename', async () => {
    raw = await startHttpFake((_req, res) => sendJson(res, 200, [
      { filename: 'web/page.tsx', previous_filename: 'services/billing/page.tsx', status: 'renamed' },
      { filename: 'README.md', status: 'modified' },
    ]))
    const files = await githubChangedFiles(createGithubClient({ baseUrl: raw.url, token: 't' }))(pr)
    expect(files).toEqual([
      { path: 'web/page.tsx', previousPath: 'services/billing/page.tsx' },
      { path: 'README.md', previousPath: undefined },
    ])
  })

  it('turns a failure into a PrheraldError with a code and a fix', async () => {
    github = await startFakeGithub()
    github.failures.push({ path: /\/files$/, status: 403 })
    const error = await githubChangedFiles(createGithubClient({ baseUrl: github.url, token: 't' }))(pr).catch((e: unknown) => e)
    expect(isPrheraldError(error, 'git_host_scope')).toBe(true)
    expect((error as { fix?: string }).fix).toMatch(/Pull requests/)
  })
})

describe('Bitbucket changed files', () => {
  let bitbucket: FakeBitbucket | undefined
  afterEach(async () => {
    await bitbucket?.close()
    bitbucket = undefined
  })

  it('follows next and maps added, removed, modified and renamed entries', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.pagelen = 2
    bitbucket.diffstat.set('acme/api#7', [
      { status: 'added', new: 'a/new.ts' },
      { status: 'removed', old: 'b/gone.ts' },
      { status: 'modified', old: 'c/same.ts', new: 'c/same.ts' },
      { status: 'renamed', old: 'd/old.ts', new: 'e/new.ts' },
      { status: 'modified', old: 'f.ts', new: 'f.ts' },
    ])
    const files = await bitbucketChangedFiles(createBitbucketClient({ baseUrl: bitbucket.url, token: 't' }))(pr)
    expect(files).toEqual([
      { path: 'a/new.ts', previousPath: undefined },
      { path: 'b/gone.ts', previousPath: undefined },
      { path: 'c/same.ts', previousPath: undefined },
      { path: 'e/new.ts', previousPath: 'd/old.ts' },
      { path: 'f.ts', previousPath: undefined },
    ])
    expect(bitbucket.requests).toHaveLength(3)
    expect(bitbucket.requests[0]!.path).toBe('/2.0/repositories/acme/api/pullrequests/7/diffstat')
  })

  it(`stops following next after ${MAX_CHANGED_FILES} entries`, async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.pagelen = 500
    bitbucket.diffstat.set('acme/api#7', names(MAX_CHANGED_FILES + 700).map((n) => ({ status: 'modified' as const, old: n, new: n })))
    const files = await bitbucketChangedFiles(createBitbucketClient({ baseUrl: bitbucket.url, token: 't' }))(pr)
    expect(files).toHaveLength(MAX_CHANGED_FILES)
    expect(bitbucket.requests).toHaveLength(MAX_CHANGED_FILES / 500)
  })
})

describe('GitLab changed files', () => {
  let gitlab: FakeGitlab | undefined
  afterEach(async () => {
    await gitlab?.close()
    gitlab = undefined
  })
  const list = () => gitlabChangedFiles(createGitlabClient({ baseUrl: gitlab!.url, token: 'glpat-files' }))({ owner: 'group/sub', repo: 'api', number: 7 })
  const diffs = (n: number) => names(n).map((path) => ({ old_path: path, new_path: path }))

  it('follows x-next-page, or Link alone as keyset pages and long lists send it, and keeps a rename\'s old path', async () => {
    gitlab = await startFakeGitlab()
    gitlab.diffs.set('group/sub/api!7', [...diffs(150), { old_path: 'lib/old.ts', new_path: 'lib/new.ts', renamed_file: true }])
    for (const linkOnly of [false, true]) {
      gitlab.linkOnly = linkOnly
      gitlab.requests.length = 0
      const files = await list()
      expect(files.map((f) => f.path)).toEqual([...names(150), 'lib/new.ts'])
      expect(files.at(-1)).toEqual({ path: 'lib/new.ts', previousPath: 'lib/old.ts' })
      expect(gitlab.requests.map((r) => `${r.path} ${r.query.get('page') ?? '1'}`)).toEqual([
        '/api/v4/projects/group%2Fsub%2Fapi/merge_requests/7/diffs 1', '/api/v4/projects/group%2Fsub%2Fapi/merge_requests/7/diffs 2',
      ])
    }
  })

  it(`stops asking after ${MAX_CHANGED_FILES} files`, async () => {
    gitlab = await startFakeGitlab()
    gitlab.diffs.set('group/sub/api!7', diffs(MAX_CHANGED_FILES + 250))
    expect(await list()).toHaveLength(MAX_CHANGED_FILES)
    expect(gitlab.requests).toHaveLength(MAX_CHANGED_FILES / 100)
  })

  it('a 429 is a PrheraldError carrying Retry-After; a missing project is GitLab\'s 404', async () => {
    gitlab = await startFakeGitlab()
    gitlab.diffs.set('group/sub/api!7', diffs(3))
    gitlab.throttled.push({ path: /diffs$/, times: 1, retryAfter: '7' })
    const throttled = await list().catch((e: unknown) => e)
    expect(isPrheraldError(throttled, 'git_host') && throttled.retryAfterMs).toBe(7000)
    const missing = await gitlabChangedFiles(createGitlabClient({ baseUrl: gitlab.url, token: 't' }))({ owner: 'group', repo: 'gone', number: 1 }).catch((e: unknown) => e)
    expect(isPrheraldError(missing) && missing.message).toBe('GitLab answered 404 to GET /projects/group%2Fgone/merge_requests/1/diffs')
  })

  it('an unreachable GitLab names GITLAB_API_URL once: the call is written relative to it', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}/api/v4`
    const failed = await gitlabChangedFiles(createGitlabClient({ baseUrl, token: 't' }))({ owner: 'group', repo: 'api', number: 1 }).catch((e: unknown) => e)
    expect(isPrheraldError(failed, 'git_host') && failed.message).toBe(`GitLab unreachable at ${baseUrl} (ECONNREFUSED) on GET /projects/group%2Fapi/merge_requests/1/diffs`)
  })
})
