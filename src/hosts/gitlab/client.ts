import { gitHostError, type HostErrorWords } from '../git-host-error.ts'
import { hostFetch } from '../host-fetch.ts'

export interface GitlabClientOptions {
  /** GITLAB_API_URL, e.g. https://gitlab.com/api/v4 or https://gitlab.example.com/api/v4 */
  baseUrl: string
  token: string
  timeoutMs?: number
}

export interface GitlabClient {
  /** A JSON call to a path under the base URL; the answer's body, parsed. */
  request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T>
  /** Every item of a list, following `x-next-page` (the `Link` header when a proxy dropped it) up to `maxItems`. */
  paginate<T>(path: string, maxItems?: number): Promise<T[]>
}

export const GITLAB_ERROR_WORDS: HostErrorWords = {
  name: 'GitLab',
  apiUrlVariable: 'GITLAB_API_URL',
  authFix: 'GITLAB_TOKEN is not valid, has expired or was revoked; create a new personal, project or group access token and set GITLAB_TOKEN',
  scopeFix: 'GITLAB_TOKEN lacks access: it needs the read_api scope (api for create-webhook) and at least the Reporter role ' +
    '(Maintainer to read or create the project\'s webhooks)',
}

/** The project in a path: GitLab takes `group/subgroup/project` URL-encoded as its id. */
export const projectId = (owner: string, repo: string) => encodeURIComponent(`${owner}/${repo}`)

const withPage = (path: string, page: string) => `${path}${path.includes('?') ? '&' : '?'}page=${page}`

/**
 * GitLab's REST API (v4) with plain `fetch`: a handful of calls do not warrant @gitbeaker/rest
 * (docs/decisions.md). `Authorization: Bearer` works for personal, project and group access tokens alike.
 * Self-managed instances with a private CA: NODE_EXTRA_CA_CERTS, which Node's fetch honours.
 */
export function createGitlabClient(options: GitlabClientOptions): GitlabClient {
  const base = options.baseUrl.replace(/\/+$/, '')
  const basePath = new URL(base).pathname.replace(/\/+$/, '')
  // `GET /projects/…`, relative to GITLAB_API_URL as GitHub's are to theirs: the unreachable message names the base already.
  const named = (url: string) => {
    const path = new URL(url).pathname
    return path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : path
  }
  const timeoutMs = options.timeoutMs ?? 10_000

  async function call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Response> {
    const url = /^https?:\/\//.test(path) ? path : `${base}${path.startsWith('/') ? '' : '/'}${path}`
    const what = `${method} ${named(url)}`
    return hostFetch(url, {
      method,
      headers: { authorization: `Bearer ${options.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    }, (failed) => gitHostError({ provider: 'gitlab', what, apiUrl: base, words: GITLAB_ERROR_WORDS, ...failed }))
  }

  async function request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    return (await (await call(method, path, body)).json()) as T
  }

  async function paginate<T>(path: string, maxItems = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = []
    const first = `${path}${path.includes('?') ? '&' : '?'}per_page=100`
    for (let next: string | undefined = first; next !== undefined && items.length < maxItems;) {
      const response: Response = await call('GET', next)
      items.push(...((await response.json()) as T[]))
      const page = response.headers.get('x-next-page')?.trim()
      // Keyset pagination and very large lists send only `Link`.
      next = page ? withPage(first, page) : /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
    }
    return items.slice(0, maxItems)
  }

  return { request, paginate }
}
