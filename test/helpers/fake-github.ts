import { createHash } from 'node:crypto'
import { handleGithubApp, type FakeGithubAppState } from './fake-github-app.ts'
import { sendJson, startHttpFake, type RecordedRequest } from './http-fake.ts'

/** A repository webhook as the GitHub REST API returns it (the fields prherald reads). */
export interface GithubHook {
  id: number
  name: 'web'
  active: boolean
  events: string[]
  config: { url: string; content_type: string; insecure_ssl: string; secret?: string }
}

export interface FakeGithub {
  url: string
  requests: RecordedRequest[]
  /** When set, a request whose Authorization is not `Bearer <token>` (or `token <token>`) gets 401. */
  token: string | undefined
  /** When set, requests must come from this GitHub App: its JWT on the app routes, an installation token of the path's owner elsewhere. */
  app: FakeGithubAppState | undefined
  /** Hooks by `owner/repo`. A repository missing here answers 404 on its hooks. */
  hooks: Map<string, GithubHook[]>
  /** Organisation hooks by org, listed by /orgs/{org}/hooks. An org missing here answers 404 (a user account). */
  orgHooks: Map<string, GithubHook[]>
  /** Repository names by owner, listed by /orgs/{org}/repos (paginated). */
  repos: Map<string, string[]>
  /** Changed file names by `owner/repo#number`, listed by /pulls/{n}/files (paginated, per_page honoured). */
  pullFiles: Map<string, string[]>
  /**
   * Repository files by `owner/repo@ref:path`, for GET /repos/{owner}/{repo}/contents/{path}?ref= (as the REST
   * docs show a file: type "file", encoding "base64", content, sha); a missing one answers 404.
   */
  files: Map<string, string>
  /** Team members' logins by `org/team_slug`, for GET /orgs/{org}/teams/{team_slug}/members (paginated). */
  teamMembers: Map<string, string[]>
  /** Public profiles by login (case ignored), for GET /users/{login}; `email` null when the person hides it. */
  users: Map<string, { email: string | null }>
  /** Pull requests by `owner/repo#number`, as GET /repos/{owner}/{repo}/pulls/{number} returns them (reconcile). */
  pulls: Map<string, Record<string, unknown>>
  /** Webhook delivery logs by hook id, newest first, listed by /hooks/{id}/deliveries (cursor pages). */
  hookDeliveries: Map<number, Array<Record<string, unknown>>>
  /** POST /hooks/{hook_id}/deliveries/{delivery_id}/attempts requests, as `owner/repo#hook_id:delivery_id`. */
  redeliveries: string[]
  /**
   * When set, every answer carries x-ratelimit-limit/remaining/reset; a request made with nothing remaining
   * gets GitHub's 403 "API rate limit exceeded" instead. `remaining` counts down with each request.
   */
  rateLimit: { limit: number; remaining: number; resetSeconds: number } | undefined
  /** Forced answers: the first rule whose method and path match wins (consumed when `times` runs out). */
  failures: Array<{ method?: string; path: RegExp; status: number; times?: number; headers?: Record<string, string> }>
  /** A classic token's scopes, sent in x-oauth-scopes with GET /user; undefined: none sent, as for a fine-grained token. */
  tokenScopes: string[] | undefined
  /**
   * POST /repos/{owner}/{repo}/pulls/{n}/requested_reviewers bodies by `owner/repo#number`, in order, as the REST
   * docs' "Request reviewers for a pull request" takes them (`reviewers`: user logins; `team_reviewers`: team slugs).
   */
  reviewRequests: Map<string, Array<{ reviewers?: string[]; team_reviewers?: string[] }>>
  /** Each review request, once recorded, waits for the first of these (taken off) before it is answered: a request in flight. */
  reviewRequestHolds: Array<Promise<void>>
  close(): Promise<void>
}

function page<T>(items: T[], query: URLSearchParams, base: string, path: string): { values: T[]; link: string | undefined } {
  const perPage = Math.min(100, Number(query.get('per_page') ?? 30))
  const pageNo = Number(query.get('page') ?? 1)
  const values = items.slice((pageNo - 1) * perPage, pageNo * perPage)
  const hasNext = pageNo * perPage < items.length
  return { values, link: hasNext ? `<${base}${path}?per_page=${perPage}&page=${pageNo + 1}>; rel="next"` : undefined }
}

/**
 * A fake GitHub REST API on 127.0.0.1: repository and organisation hooks, an owner's repositories, a pull request's files;
 * for reconcile, pull requests, hook delivery logs, redelivery requests and the x-ratelimit-* budget.
 */
export async function startFakeGithub(): Promise<FakeGithub> {
  let nextHookId = 1
  const state = {
    token: undefined as string | undefined,
    app: undefined as FakeGithubAppState | undefined,
    hooks: new Map<string, GithubHook[]>(),
    orgHooks: new Map<string, GithubHook[]>(),
    repos: new Map<string, string[]>(),
    pullFiles: new Map<string, string[]>(),
    files: new Map<string, string>(),
    teamMembers: new Map<string, string[]>(),
    users: new Map<string, { email: string | null }>(),
    pulls: new Map<string, Record<string, unknown>>(),
    hookDeliveries: new Map<number, Array<Record<string, unknown>>>(),
    redeliveries: [] as string[],
    rateLimit: undefined as FakeGithub['rateLimit'],
    failures: [] as FakeGithub['failures'],
    tokenScopes: undefined as string[] | undefined,
    reviewRequests: new Map<string, Array<{ reviewers?: string[]; team_reviewers?: string[] }>>(),
    reviewRequestHolds: [] as Array<Promise<void>>,
  }
  let base = ''
  const fake = await startHttpFake(async (req, res) => {
    const limit = state.rateLimit
    if (limit) {
      const exhausted = limit.remaining <= 0
      if (!exhausted) limit.remaining--
      const headers = { 'x-ratelimit-limit': String(limit.limit), 'x-ratelimit-remaining': String(limit.remaining), 'x-ratelimit-reset': String(limit.resetSeconds) }
      if (exhausted) return sendJson(res, 403, { message: 'API rate limit exceeded' }, headers)
      const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string>) => typeof res
      res.writeHead = ((status: number, own?: Record<string, string>) => writeHead(status, { ...headers, ...own })) as typeof res.writeHead
    }
    const failure = state.failures.find((f) => (!f.method || f.method === req.method) && f.path.test(req.path))
    if (failure) {
      if (failure.times !== undefined && --failure.times <= 0) state.failures.splice(state.failures.indexOf(failure), 1)
      return sendJson(res, failure.status, { message: `forced ${failure.status}` }, failure.headers)
    }
    const auth = req.headers.authorization ?? ''
    if (state.token !== undefined && auth !== `Bearer ${state.token}` && auth !== `token ${state.token}`) {
      return sendJson(res, 401, { message: 'Bad credentials' })
    }
    if (state.app && handleGithubApp(state.app, req, res)) return
    const paged = <T>(items: T[]) => {
      const { values, link } = page(items, req.query, base, req.path)
      return sendJson(res, 200, values, link ? { link } : {})
    }
    let m: RegExpMatchArray | null
    if (req.path === '/user' && req.method === 'GET') {
      return sendJson(res, 200, { login: 'prherald-bot', type: 'User' }, state.tokenScopes ? { 'x-oauth-scopes': state.tokenScopes.join(', ') } : {})
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/hooks$/))) {
      const key = `${m[1]}/${m[2]}`
      const hooks = state.hooks.get(key)
      if (!hooks) return sendJson(res, 404, { message: 'Not Found' })
      if (req.method === 'GET') return paged(hooks)
      if (req.method === 'POST') {
        const body = req.body as { name?: 'web'; active?: boolean; events?: string[]; config?: GithubHook['config'] }
        const hook: GithubHook = { id: nextHookId++, name: 'web', active: body.active ?? true, events: body.events ?? ['push'], config: body.config! }
        hooks.push(hook)
        return sendJson(res, 201, hook)
      }
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/hooks\/(\d+)$/)) && req.method === 'PATCH') {
      const hook = state.hooks.get(`${m[1]}/${m[2]}`)?.find((h) => h.id === Number(m![3]))
      if (!hook) return sendJson(res, 404, { message: 'Not Found' })
      const body = req.body as Partial<GithubHook>
      Object.assign(hook, { active: body.active ?? hook.active, events: body.events ?? hook.events, config: { ...hook.config, ...body.config } })
      return sendJson(res, 200, hook)
    }
    if ((m = req.path.match(/^\/orgs\/([^/]+)\/hooks$/)) && req.method === 'GET') {
      const hooks = state.orgHooks.get(m[1]!)
      return hooks ? paged(hooks) : sendJson(res, 404, { message: 'Not Found' })
    }
    if ((m = req.path.match(/^\/(?:orgs|users)\/([^/]+)\/repos$/)) && req.method === 'GET') {
      const names = state.repos.get(m[1]!)
      if (!names) return sendJson(res, 404, { message: 'Not Found' })
      return paged(names.map((name, i) => ({ id: i + 1, name, full_name: `${m![1]}/${name}`, owner: { login: m![1] }, archived: false })))
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/)) && req.method === 'GET') {
      const pull = state.pulls.get(`${m[1]}/${m[2]}#${m[3]}`)
      return pull ? sendJson(res, 200, pull) : sendJson(res, 404, { message: 'Not Found' })
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/requested_reviewers$/)) && req.method === 'POST') {
      // The docs answer 201 with the pull request; 422 "Reviews may only be requested from collaborators" when a login cannot review.
      const body = req.body as { reviewers?: string[]; team_reviewers?: string[] }
      if (!Array.isArray(body.reviewers) && !Array.isArray(body.team_reviewers)) return sendJson(res, 422, { message: 'Invalid request.' })
      const key = `${m[1]}/${m[2]}#${m[3]}`
      state.reviewRequests.set(key, [...(state.reviewRequests.get(key) ?? []), body])
      await state.reviewRequestHolds.shift()
      return sendJson(res, 201, { number: Number(m[3]), requested_reviewers: (body.reviewers ?? []).map((login) => ({ login, type: 'User' })), requested_teams: [] })
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/hooks\/(\d+)\/deliveries$/)) && req.method === 'GET') {
      const log = state.hookDeliveries.get(Number(m[3]))
      if (!log) return sendJson(res, 404, { message: 'Not Found' })
      // GitHub pages this log by an opaque cursor; here it is the index of the page's first entry.
      const perPage = Math.min(100, Number(req.query.get('per_page') ?? 30))
      const start = Number(req.query.get('cursor') ?? 0)
      const next = start + perPage < log.length ? `<${base}${req.path}?per_page=${perPage}&cursor=${start + perPage}>; rel="next"` : undefined
      return sendJson(res, 200, log.slice(start, start + perPage), next ? { link: next } : {})
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/hooks\/(\d+)\/deliveries\/(\d+)\/attempts$/)) && req.method === 'POST') {
      if (!state.hookDeliveries.get(Number(m[3]))?.some((d) => String(d.id) === m![4])) return sendJson(res, 404, { message: 'Not Found' })
      state.redeliveries.push(`${m[1]}/${m[2]}#${m[3]}:${m[4]}`)
      return sendJson(res, 202, {})
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/files$/)) && req.method === 'GET') {
      const files = state.pullFiles.get(`${m[1]}/${m[2]}#${m[3]}`)
      if (!files) return sendJson(res, 404, { message: 'Not Found' })
      return paged(files.map((filename) => ({ filename, status: 'modified', additions: 1, deletions: 0, changes: 1 })))
    }
    if ((m = req.path.match(/^\/repos\/([^/]+)\/([^/]+)\/contents\/(.+)$/)) && req.method === 'GET') {
      const path = decodeURIComponent(m[3]!)
      const text = state.files.get(`${m[1]}/${m[2]}@${req.query.get('ref') ?? 'main'}:${path}`)
      if (text === undefined) return sendJson(res, 404, { message: 'Not Found' })
      const sha = createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0${text}`).digest('hex')
      return sendJson(res, 200, { type: 'file', encoding: 'base64', size: Buffer.byteLength(text), name: path.split('/').at(-1), path, content: Buffer.from(text).toString('base64'), sha })
    }
    if ((m = req.path.match(/^\/orgs\/([^/]+)\/teams\/([^/]+)\/members$/)) && req.method === 'GET') {
      const members = state.teamMembers.get(`${m[1]}/${m[2]}`)
      if (!members) return sendJson(res, 404, { message: 'Not Found' })
      return paged(members.map((login, i) => ({ login, id: 5000 + i, type: 'User' })))
    }
    if ((m = req.path.match(/^\/users\/([^/]+)$/)) && req.method === 'GET') {
      const login = decodeURIComponent(m[1]!)
      const user = [...state.users.entries()].find(([l]) => l.toLowerCase() === login.toLowerCase())
      if (!user) return sendJson(res, 404, { message: 'Not Found' })
      return sendJson(res, 200, { login: user[0], id: 1, type: 'User', email: user[1].email })
    }
    return sendJson(res, 404, { message: 'Not Found' })
  })
  base = fake.url
  return Object.assign(state, { url: fake.url, requests: fake.requests, close: fake.close })
}
