import { PrheraldError } from '../../errors.ts'
import { gitHostError } from '../git-host-error.ts'
import { hostFetch } from '../host-fetch.ts'

export interface BitbucketClientOptions {
  /** BITBUCKET_API_URL, e.g. https://api.bitbucket.org/2.0 */
  baseUrl: string
  token: string
  /** BITBUCKET_AUTH_EMAIL: when set, HTTP Basic `<email>:<token>` (scoped API tokens); otherwise Bearer (access tokens). */
  authEmail?: string | undefined
  timeoutMs?: number
}

/** One page of a Bitbucket Cloud 2.0 collection. */
export interface BitbucketPage<T> {
  values?: T[]
  next?: string
}

export interface BitbucketClient {
  /** GET a path under the base URL (or an absolute `next` link), parsed as JSON. */
  get<T>(path: string): Promise<T>
  /** GET a path under the base URL as text (a file's raw content from /src). */
  getText(path: string): Promise<string>
  /** Every value of a paginated collection, following `next` up to `maxItems`. */
  paginate<T>(path: string, maxItems?: number): Promise<T[]>
  /** PUT a JSON body to a path under the base URL (a pull request's reviewers); the answer, parsed. */
  put<T>(path: string, body: unknown): Promise<T>
}

/**
 * Bitbucket Cloud has no maintained Node client worth a dependency for two GET calls, so this is `fetch`
 * with the auth scheme the token kind needs, a timeout, and errors that name the fix.
 */
export function createBitbucketClient(options: BitbucketClientOptions): BitbucketClient {
  const base = options.baseUrl.replace(/\/+$/, '')
  const basicAuth = options.authEmail !== undefined && options.authEmail !== ''
  // The email is used verbatim: Bitbucket compares it byte for byte, so stray quotes or spaces fail with 401.
  const authorization = basicAuth
    ? `Basic ${Buffer.from(`${options.authEmail}:${options.token}`).toString('base64')}`
    : `Bearer ${options.token}`
  const timeoutMs = options.timeoutMs ?? 10_000

  async function get<T>(path: string): Promise<T> {
    return (await (await call(path)).json()) as T
  }

  async function getText(path: string): Promise<string> {
    return (await call(path)).text()
  }

  async function put<T>(path: string, body: unknown): Promise<T> {
    return (await (await call(path, body)).json()) as T
  }

  async function call(path: string, body?: unknown): Promise<Response> {
    const url = /^https?:\/\//.test(path) ? path : `${base}${path.startsWith('/') ? '' : '/'}${path}`
    const method = body === undefined ? 'GET' : 'PUT'
    const what = `${method} ${new URL(url).pathname}`
    // The credentials go only to the configured API: a `next` link elsewhere (a compromised or spoofed
    // answer) would otherwise receive the Authorization header.
    if (!url.startsWith(`${base}/`)) {
      throw new PrheraldError('git_host', `Bitbucket answered a link outside BITBUCKET_API_URL (${new URL(url).origin}); not followed`, {
        fix: `check that BITBUCKET_API_URL (${base}) is the API Bitbucket's answers link to`,
      })
    }
    const sends = body === undefined ? {} : { method, body: JSON.stringify(body) }
    const headers = { authorization, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }
    return hostFetch(url, { headers, ...sends, signal: AbortSignal.timeout(timeoutMs) },
      (failed) => gitHostError({ provider: 'bitbucket', what, basicAuth, apiUrl: base, ...failed }))
  }

  async function paginate<T>(path: string, maxItems = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = []
    for (let next: string | undefined = path; next !== undefined && items.length < maxItems;) {
      const page: BitbucketPage<T> = await get<BitbucketPage<T>>(next)
      items.push(...(page.values ?? []))
      next = page.next
    }
    return items.slice(0, maxItems)
  }

  return { get, getText, paginate, put }
}
