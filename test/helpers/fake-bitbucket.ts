import { sendJson, startHttpFake, type RecordedRequest } from './http-fake.ts'

/** A repository webhook as Bitbucket Cloud 2.0 returns it (the fields prherald reads). */
export interface BitbucketHook {
  uuid: string
  url: string
  description: string
  active: boolean
  events: string[]
}

export interface FakeBitbucket {
  /** The API base, like https://api.bitbucket.org/2.0 */
  url: string
  requests: RecordedRequest[]
  /**
   * What Authorization must be: Bearer with an access token, or Basic with an API token and its email.
   * Anything else answers 401, as Bitbucket does for a scheme/token mismatch.
   */
  auth: { bearer: string } | { basic: { email: string; token: string } } | undefined
  /** Paths (regex) answered 403, as Bitbucket does when the token lacks a scope. */
  forbidden: RegExp[]
  /** Hooks by `workspace/repo`. A repository missing here answers 404. */
  hooks: Map<string, BitbucketHook[]>
  /** Workspace hooks by workspace, listed by /workspaces/{workspace}/hooks. A workspace missing here answers 404. */
  workspaceHooks: Map<string, BitbucketHook[]>
  /** Repository slugs by workspace, listed by /repositories/{workspace} (paginated by `next`). */
  repos: Map<string, string[]>
  /** Changed paths by `workspace/repo#id`, listed by /pullrequests/{id}/diffstat (paginated by `next`). */
  /** Repository files by `workspace/repo@ref:path`, for GET /repositories/{workspace}/{repo}/src/{commit}/{path} (the raw file). */
  files: Map<string, string>
  diffstat: Map<string, Array<{ status: 'added' | 'removed' | 'modified' | 'renamed'; old?: string; new?: string }>>
  /** Pull requests by `workspace/repo#id`, as GET /pullrequests/{id} returns them (reconcile). */
  pullRequests: Map<string, Record<string, unknown>>
  /**
   * PUT /pullrequests/{id} bodies by `workspace/repo#id`, in order ("Update a pull request"). As Atlassian
   * answers on its community ("Adding reviewers to pull requests via REST API"), a body without `title` is
   * refused 400 (`title: This field is required.`); `reviewers` replaces the stored pull request's list.
   */
  pullRequestUpdates: Map<string, Array<Record<string, unknown>>>
  /** Answers 429 (with this Retry-After, if any) to the next `times` requests whose path matches. */
  throttled: Array<{ path: RegExp; times: number; retryAfter?: string }>
  /** Page size of every collection. */
  pagelen: number
  close(): Promise<void>
}

export async function startFakeBitbucket(): Promise<FakeBitbucket> {
  const state = {
    auth: undefined as FakeBitbucket['auth'],
    forbidden: [] as RegExp[],
    hooks: new Map<string, BitbucketHook[]>(),
    workspaceHooks: new Map<string, BitbucketHook[]>(),
    repos: new Map<string, string[]>(),
    files: new Map<string, string>(),
    diffstat: new Map<string, FakeBitbucket['diffstat'] extends Map<string, infer V> ? V : never>(),
    pullRequests: new Map<string, Record<string, unknown>>(),
    pullRequestUpdates: new Map<string, Array<Record<string, unknown>>>(),
    throttled: [] as FakeBitbucket['throttled'],
    pagelen: 10,
  }
  let root = ''
  const fake = await startHttpFake((req, res) => {
    const path = req.path.replace(/^\/2\.0/, '')
    if (state.auth) {
      const expected = 'bearer' in state.auth
        ? `Bearer ${state.auth.bearer}`
        : `Basic ${Buffer.from(`${state.auth.basic.email}:${state.auth.basic.token}`).toString('base64')}`
      if (req.headers.authorization !== expected) return sendJson(res, 401, { type: 'error', error: { message: 'Unauthorized' } })
    }
    if (state.forbidden.some((r) => r.test(path))) return sendJson(res, 403, { type: 'error', error: { message: 'Forbidden' } })
    const throttle = state.throttled.find((t) => t.times > 0 && t.path.test(path))
    if (throttle) {
      throttle.times--
      return sendJson(res, 429, { type: 'error', error: { message: 'Rate limit for this resource has been exceeded' } }, throttle.retryAfter ? { 'retry-after': throttle.retryAfter } : {})
    }
    const paged = <T>(items: T[]) => {
      const pageNo = Number(req.query.get('page') ?? 1)
      const values = items.slice((pageNo - 1) * state.pagelen, pageNo * state.pagelen)
      const next = pageNo * state.pagelen < items.length ? `${root}${path}?page=${pageNo + 1}` : undefined
      return sendJson(res, 200, { pagelen: state.pagelen, page: pageNo, size: items.length, values, ...(next ? { next } : {}) })
    }
    let m: RegExpMatchArray | null
    if ((m = path.match(/^\/repositories\/([^/]+)\/([^/]+)\/hooks$/)) && req.method === 'GET') {
      const hooks = state.hooks.get(`${m[1]}/${m[2]}`)
      return hooks ? paged(hooks) : sendJson(res, 404, { type: 'error', error: { message: 'Repository not found' } })
    }
    if ((m = path.match(/^\/workspaces\/([^/]+)\/hooks$/)) && req.method === 'GET') {
      const hooks = state.workspaceHooks.get(m[1]!)
      return hooks ? paged(hooks) : sendJson(res, 404, { type: 'error', error: { message: 'Workspace not found' } })
    }
    if ((m = path.match(/^\/repositories\/([^/]+)$/)) && req.method === 'GET') {
      const slugs = state.repos.get(m[1]!)
      return slugs
        ? paged(slugs.map((slug) => ({ slug, name: slug, full_name: `${m![1]}/${slug}`, type: 'repository' })))
        : sendJson(res, 404, { type: 'error', error: { message: 'Workspace not found' } })
    }
    // "Get a repository": its `mainbranch`, the default branch (main in the fake), for a repository it knows.
    if ((m = path.match(/^\/repositories\/([^/]+)\/([^/]+)$/)) && req.method === 'GET') {
      const key = `${m[1]}/${m[2]}`
      const known = state.hooks.has(key) || [...state.files.keys()].some((k) => k.startsWith(`${key}@`)) || (state.repos.get(m[1]!) ?? []).includes(m[2]!)
      if (!known) return sendJson(res, 404, { type: 'error', error: { message: 'Repository not found' } })
      return sendJson(res, 200, { type: 'repository', full_name: key, name: m[2], slug: m[2], mainbranch: { type: 'branch', name: 'main' } })
    }
    if ((m = path.match(/^\/repositories\/([^/]+)\/([^/]+)\/pullrequests\/(\d+)$/)) && req.method === 'GET') {
      const pr = state.pullRequests.get(`${m[1]}/${m[2]}#${m[3]}`)
      return pr ? sendJson(res, 200, pr) : sendJson(res, 404, { type: 'error', error: { message: 'Pull request not found' } })
    }
    if ((m = path.match(/^\/repositories\/([^/]+)\/([^/]+)\/pullrequests\/(\d+)$/)) && req.method === 'PUT') {
      const key = `${m[1]}/${m[2]}#${m[3]}`
      const pr = state.pullRequests.get(key)
      if (!pr) return sendJson(res, 404, { type: 'error', error: { message: 'Pull request not found' } })
      const body = req.body as Record<string, unknown>
      if (typeof body.title !== 'string') return sendJson(res, 400, { type: 'error', error: { message: 'title: This field is required.', fields: { title: ['This field is required.'] } } })
      state.pullRequestUpdates.set(key, [...(state.pullRequestUpdates.get(key) ?? []), body])
      if (Array.isArray(body.reviewers)) pr.reviewers = body.reviewers
      return sendJson(res, 200, { ...pr, title: body.title })
    }
    if ((m = path.match(/^\/repositories\/([^/]+)\/([^/]+)\/src\/([^/]+)\/(.+)$/)) && req.method === 'GET') {
      const text = state.files.get(`${m[1]}/${m[2]}@${decodeURIComponent(m[3]!)}:${decodeURIComponent(m[4]!)}`)
      if (text === undefined) return sendJson(res, 404, { type: 'error', error: { message: 'No such file or directory' } })
      res.writeHead(200, { 'content-type': 'text/plain' })
      return void res.end(text)
    }
    if ((m = path.match(/^\/repositories\/([^/]+)\/([^/]+)\/pullrequests\/(\d+)\/diffstat$/)) && req.method === 'GET') {
      const entries = state.diffstat.get(`${m[1]}/${m[2]}#${m[3]}`)
      if (!entries) return sendJson(res, 404, { type: 'error', error: { message: 'Pull request not found' } })
      return paged(entries.map((e) => ({
        type: 'diffstat', status: e.status, lines_added: 1, lines_removed: 0,
        old: e.old ? { path: e.old, type: 'commit_file' } : null,
        new: e.new ? { path: e.new, type: 'commit_file' } : null,
      })))
    }
    return sendJson(res, 404, { type: 'error', error: { message: 'Not found' } })
  })
  root = `${fake.url}/2.0`
  return Object.assign(state, { url: root, requests: fake.requests, close: fake.close })
}
