import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { sendJson, startHttpFake, type RecordedRequest } from './http-fake.ts'

/** A project or group hook as GitLab's hooks API returns it (doc/api/project_webhooks.md); the token is never returned. */
export interface GitlabHook {
  id: number
  url: string
  push_events: boolean
  merge_requests_events: boolean
  note_events: boolean
  pipeline_events: boolean
  issues_events: boolean
  tag_push_events: boolean
  enable_ssl_verification: boolean
  /** `executable`, `temporarily_disabled` (until `disabled_until`) or `disabled`. */
  alert_status: string
  disabled_until: string | null
  created_at: string
}

/** A merge request's changed file as /merge_requests/:iid/diffs lists it. */
export interface GitlabDiff {
  old_path: string
  new_path: string
  new_file?: boolean
  renamed_file?: boolean
  deleted_file?: boolean
}

export interface GitlabUser {
  id: number
  username: string
  /** What the user chose to show on their profile; GitLab answers "" when nothing. */
  public_email: string
}

export interface FakeGitlab {
  /** The API base, like https://gitlab.com/api/v4 */
  url: string
  requests: RecordedRequest[]
  /** When set, `Authorization: Bearer <token>` or `PRIVATE-TOKEN: <token>` is required; anything else is GitLab's 401. */
  token: string | undefined
  /** Paths (regex on the decoded path under /api/v4) answered 403, as for a token without the scope or the role. */
  forbidden: RegExp[]
  /** Project hooks by full path (`group/sub/project`). A project missing here is `404 Project Not Found`. */
  hooks: Map<string, GitlabHook[]>
  /** The `token` each hook was created or updated with, by hook id (GitLab keeps it but never shows it). */
  hookTokens: Map<number, string>
  /** Group hooks by full group path (Premium); a group missing here answers 404. */
  groupHooks: Map<string, GitlabHook[]>
  /** The projects directly in a group, by full group path, as `path`s. */
  groupProjects: Map<string, string[]>
  /** Merge requests by `group/project!iid`, as GET /projects/:id/merge_requests/:iid returns them. */
  mergeRequests: Map<string, Record<string, unknown>>
  /**
   * PUT /projects/:id/merge_requests/:iid bodies by `group/project!iid`, in order ("Update MR"). A body with
   * `reviewer_ids` replaces the merge request's `reviewers` (each a user of `users`), as the list it is.
   */
  mergeRequestUpdates: Map<string, Array<Record<string, unknown>>>
  /** Direct members' usernames by group path, for GET /groups/:id/members ("List all members of a group or project"); a path missing here is 404. */
  groupMembers: Map<string, string[]>
  /** Reviewers by `group/project!iid`, for /merge_requests/:iid/reviewers; `state` absent is `unreviewed`. */
  reviewers: Map<string, Array<{ username: string; state?: string }>>
  /** Changed files by `group/project!iid`. */
  diffs: Map<string, GitlabDiff[]>
  /**
   * Repository files by `<project path>@ref:path`, for GET /projects/:id/repository/files/:file_path?ref= ("Get
   * file from repository": content Base64-encoded, with blob_id); a missing one answers 404.
   */
  files: Map<string, string>
  users: GitlabUser[]
  /** Answers 429 (`Retry later`, with this Retry-After) to the next `times` requests whose path matches. */
  throttled: Array<{ path: RegExp; times: number; retryAfter?: string }>
  /** Default page size (GitLab's is 20; `per_page` up to 100 overrides it). */
  perPage: number
  /** Send only the `Link` header, as keyset pagination and lists over 10,000 items do. */
  linkOnly: boolean
  /** The token's scopes, for GET /personal_access_tokens/self (GitLab 15.5+); undefined: 404, as an older GitLab answers. */
  tokenScopes: string[] | undefined
  close(): Promise<void>
}

let nextHookId = 1

/** A hook with GitLab's defaults for a new one: push events on, everything else off. */
export function gitlabHook(url: string, events: Partial<GitlabHook> = {}): GitlabHook {
  return {
    id: nextHookId++, url, push_events: true, merge_requests_events: false, note_events: false, pipeline_events: false, issues_events: false,
    tag_push_events: false, enable_ssl_verification: true, alert_status: 'executable', disabled_until: null, created_at: '2026-11-20T09:00:00.000Z', ...events,
  }
}

/** GitLab's offset pagination: `x-page`, `x-per-page`, `x-next-page` (empty on the last), `x-total(-pages)` and `Link`. */
function sendPage<T>(res: ServerResponse, state: Pick<FakeGitlab, 'perPage' | 'linkOnly'>, root: string, req: RecordedRequest, items: T[]): void {
  const perPage = Math.min(100, Number(req.query.get('per_page') ?? state.perPage))
  const page = Number(req.query.get('page') ?? 1)
  const pages = Math.max(1, Math.ceil(items.length / perPage))
  const at = (n: number) => {
    const query = new URLSearchParams(req.query)
    query.set('page', String(n))
    query.set('per_page', String(perPage))
    return `${root}${req.path.replace(/^\/api\/v4/, '')}?${query}`
  }
  const links = [...(page < pages ? [`<${at(page + 1)}>; rel="next"`] : []), `<${at(1)}>; rel="first"`, `<${at(pages)}>; rel="last"`]
  const headers: Record<string, string> = state.linkOnly ? { link: links.join(', ') } : {
    'x-page': String(page), 'x-per-page': String(perPage), 'x-next-page': page < pages ? String(page + 1) : '', 'x-prev-page': page > 1 ? String(page - 1) : '',
    'x-total': String(items.length), 'x-total-pages': String(pages), link: links.join(', '),
  }
  sendJson(res, 200, items.slice((page - 1) * perPage, page * perPage), headers)
}

const HOOK_FIELDS = ['url', 'push_events', 'merge_requests_events', 'note_events', 'pipeline_events', 'issues_events', 'tag_push_events', 'enable_ssl_verification'] as const

/**
 * A fake GitLab REST API v4 on 127.0.0.1, answering the calls prherald makes as gitlab.com does: projects by their
 * URL-encoded full path, project and group hooks (create and update), a group's projects, a merge request and its
 * diffs, users and their public email; GitLab's error bodies, offset pagination headers and 429 with Retry-After.
 */
export async function startFakeGitlab(): Promise<FakeGitlab> {
  const state = {
    token: undefined as string | undefined,
    forbidden: [] as RegExp[],
    hooks: new Map<string, GitlabHook[]>(),
    hookTokens: new Map<number, string>(),
    groupHooks: new Map<string, GitlabHook[]>(),
    groupProjects: new Map<string, string[]>(),
    mergeRequests: new Map<string, Record<string, unknown>>(),
    diffs: new Map<string, GitlabDiff[]>(),
    files: new Map<string, string>(),
    reviewers: new Map<string, Array<{ username: string; state?: string }>>(),
    mergeRequestUpdates: new Map<string, Array<Record<string, unknown>>>(),
    groupMembers: new Map<string, string[]>(),
    users: [] as GitlabUser[],
    throttled: [] as FakeGitlab['throttled'],
    perPage: 20,
    linkOnly: false,
    tokenScopes: undefined as string[] | undefined,
  }
  let root = ''
  const fake = await startHttpFake((req, res) => {
    if (!req.path.startsWith('/api/v4/')) return sendJson(res, 404, { error: '404 Not Found' })
    const path = req.path.slice('/api/v4'.length)
    const auth = req.headers.authorization ?? (req.headers['private-token'] ? `Bearer ${String(req.headers['private-token'])}` : '')
    if (state.token !== undefined && auth !== `Bearer ${state.token}`) return sendJson(res, 401, { message: '401 Unauthorized' })
    const throttle = state.throttled.find((t) => t.times > 0 && t.path.test(path))
    if (throttle) {
      throttle.times--
      res.writeHead(429, { 'content-type': 'text/plain', ...(throttle.retryAfter ? { 'retry-after': throttle.retryAfter } : {}) }).end('Retry later\n')
      return
    }
    // The project or group id is one segment: the full path with its slashes as %2F.
    const segments = path.split('/').slice(1).map(decodeURIComponent)
    if (state.forbidden.some((r) => r.test(segments.join('/')))) return sendJson(res, 403, { message: '403 Forbidden' })
    const [kind, id, sub, subId, leaf] = segments
    const notFound = (what: string) => sendJson(res, 404, { message: `404 ${what} Not Found` })
    if (kind === 'personal_access_tokens' && id === 'self' && req.method === 'GET') {
      return state.tokenScopes ? sendJson(res, 200, { id: 7, name: 'prherald', scopes: state.tokenScopes, active: true }) : notFound('')
    }
    if (kind === 'projects' && id !== undefined) {
      const known = state.hooks.has(id) || [...state.mergeRequests.keys(), ...state.diffs.keys()].some((k) => k.startsWith(`${id}!`))
        || [...state.files.keys()].some((k) => k.startsWith(`${id}@`))
      if (!known) return notFound('Project')
      if (sub === 'repository' && subId === 'files' && leaf !== undefined && req.method === 'GET') {
        // "Use HEAD to automatically use the default branch" (Repository files API): the fake's default is main.
        const ref = req.query.get('ref')
        const text = state.files.get(`${id}@${ref === null || ref === 'HEAD' ? 'main' : ref}:${leaf}`)
        if (text === undefined) return notFound('File')
        const blob = createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0${text}`).digest('hex')
        return sendJson(res, 200, {
          file_name: leaf.split('/').at(-1), file_path: leaf, size: Buffer.byteLength(text), encoding: 'base64',
          content: Buffer.from(text).toString('base64'), ref: req.query.get('ref'), blob_id: blob, commit_id: 'd5a3ff139356ce33e37e73add446f16869741b50',
        })
      }
      if (sub === 'hooks') {
        const hooks = state.hooks.get(id) ?? []
        state.hooks.set(id, hooks)
        if (subId === undefined && req.method === 'GET') return sendPage(res, state, root, req, hooks)
        const body = req.body as Partial<GitlabHook> & { token?: string }
        if (subId === undefined && req.method === 'POST') {
          if (typeof body.url !== 'string') return sendJson(res, 400, { error: 'url is missing' })
          const hook = gitlabHook(body.url, Object.fromEntries(HOOK_FIELDS.filter((f) => f in body).map((f) => [f, body[f]])))
          hooks.push(hook)
          if (body.token !== undefined) state.hookTokens.set(hook.id, body.token)
          return sendJson(res, 201, hook)
        }
        const hook = hooks.find((h) => String(h.id) === subId)
        if (req.method === 'PUT' && leaf === undefined) {
          if (!hook) return notFound('Hook')
          Object.assign(hook, Object.fromEntries(HOOK_FIELDS.filter((f) => f in body).map((f) => [f, body[f]])))
          if (body.token !== undefined) state.hookTokens.set(hook.id, body.token)
          return sendJson(res, 200, hook)
        }
      }
      if (sub === 'merge_requests' && subId !== undefined && leaf === undefined && req.method === 'PUT') {
        const key = `${id}!${subId}`
        const mr = state.mergeRequests.get(key)
        if (!mr) return sendJson(res, 404, { message: '404 Not found' })
        const body = req.body as Record<string, unknown>
        if (Object.keys(body).length === 0) return sendJson(res, 400, { error: 'at least one parameter must be provided' })
        state.mergeRequestUpdates.set(key, [...(state.mergeRequestUpdates.get(key) ?? []), body])
        if (Array.isArray(body.reviewer_ids)) {
          mr.reviewers = (body.reviewer_ids as number[]).flatMap((rid) => state.users.filter((u) => u.id === rid))
            .map((u) => ({ id: u.id, username: u.username, name: u.username, state: 'active' }))
        }
        return sendJson(res, 200, mr)
      }
      if (sub === 'merge_requests' && subId !== undefined && req.method === 'GET') {
        const key = `${id}!${subId}`
        if (leaf === undefined) return state.mergeRequests.has(key) ? sendJson(res, 200, state.mergeRequests.get(key)) : sendJson(res, 404, { message: '404 Not found' })
        if (leaf === 'reviewers') {
          if (!state.mergeRequests.has(key)) return sendJson(res, 404, { message: '404 Not found' })
          return sendPage(res, state, root, req, (state.reviewers.get(key) ?? []).map((r, i) => ({
            user: { id: 200 + i, username: r.username, name: r.username, state: 'active', avatar_url: null, web_url: `https://gitlab.example.com/${r.username}` },
            state: r.state ?? 'unreviewed', created_at: '2026-11-20T09:31:00.000Z',
          })))
        }
        if (leaf === 'diffs') {
          const diffs = state.diffs.get(key)
          if (!diffs) return sendJson(res, 404, { message: '404 Not found' })
          return sendPage(res, state, root, req, diffs.map((d) => ({
            a_mode: '100644', b_mode: '100644', new_file: false, renamed_file: false, deleted_file: false, generated_file: false, diff: '@@ -1 +1 @@\n-a\n+b\n', ...d,
          })))
        }
      }
      return sendJson(res, 404, { error: '404 Not Found' })
    }
    if (kind === 'groups' && id !== undefined && req.method === 'GET') {
      if (sub === 'hooks' && subId === undefined) {
        const hooks = state.groupHooks.get(id)
        return hooks ? sendPage(res, state, root, req, hooks) : notFound('Group')
      }
      if (sub === 'members' && subId === undefined) {
        const members = state.groupMembers.get(id)
        if (!members) return notFound('Group')
        return sendPage(res, state, root, req, members.map((username, i) => ({ id: 300 + i, username, name: username, state: 'active', access_level: 30 })))
      }
      if (sub === 'projects' && subId === undefined) {
        const paths = state.groupProjects.get(id)
        if (!paths) return notFound('Group')
        return sendPage(res, state, root, req, paths.map((p, i) => ({ id: i + 100, name: p, path: p, path_with_namespace: `${id}/${p}`, archived: false })))
      }
    }
    if (kind === 'users' && req.method === 'GET') {
      const profile = (u: GitlabUser) => ({ id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `https://gitlab.example.com/${u.username}` })
      if (id === undefined) {
        const wanted = req.query.get('username')?.toLowerCase()
        return sendJson(res, 200, state.users.filter((u) => wanted === undefined || u.username.toLowerCase() === wanted).map(profile))
      }
      const user = state.users.find((u) => String(u.id) === id)
      return user ? sendJson(res, 200, { ...profile(user), public_email: user.public_email, bio: '', created_at: '2020-01-01T00:00:00.000Z' }) : notFound('User')
    }
    return sendJson(res, 404, { error: '404 Not Found' })
  })
  root = `${fake.url}/api/v4`
  return Object.assign(state, { url: root, requests: fake.requests, close: fake.close })
}
