import { createRequire } from 'node:module'
import type { Octokit } from '@octokit/rest'
import { isPrheraldError } from '../../errors.ts'
import { gitHostError } from '../git-host-error.ts'
import { ownerAppAuth } from './app-auth.ts'
import type { GithubAppCredentials } from './app-credentials.ts'

export interface GithubClientOptions {
  /** GITHUB_API_URL: api.github.com, a GitHub Enterprise Server `/api/v3`, or a fake in tests. */
  baseUrl: string
  token?: string
  /** Instead of a token: a GitHub App, whose installation is chosen by each call's owner. */
  app?: GithubAppCredentials
  timeoutMs?: number
}

export type GithubClient = Octokit

/** Octokit with the base URL, the token as Bearer (or the app's installation tokens), and a per-request timeout (Octokit has none by default). */
export function createGithubClient(options: GithubClientOptions): GithubClient {
  const timeoutMs = options.timeoutMs ?? 10_000
  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs)
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout })
  }
  // Loaded on the first connect(), not with the host registry: a server of another host, or one without
  // GITHUB_TOKEN, never needs Octokit's 9 MiB. Synchronous (require of an ES module), so connect() stays so.
  const { Octokit: OctokitClass } = createRequire(import.meta.url)('@octokit/rest') as typeof import('@octokit/rest')
  return new OctokitClass({
    baseUrl: options.baseUrl,
    ...(options.app ? { authStrategy: ownerAppAuth, auth: { app: options.app } } : { auth: options.token }),
    userAgent: 'prherald',
    request: { fetch: timedFetch },
    // Octokit logs warnings such as deprecations through console; ours go through the structured logger or nowhere.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  })
}

interface RequestErrorLike {
  status?: unknown
  /** Absent when no HTTP answer came back: Octokit then reports a refused connection or a timeout as status 500. */
  response?: { headers?: Record<string, string | number | undefined> }
}

/** Runs one GitHub API call and turns Octokit's RequestError into a PrheraldError with the fix. */
export async function githubCall<T>(octokit: GithubClient, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    throw githubError(octokit, what, error)
  }
}

/** The PrheraldError for an error Octokit threw on `what`. */
export function githubError(octokit: GithubClient, what: string, error: unknown) {
  // The app's installation look-up already said what is wrong (not installed, a key that does not match).
  if (isPrheraldError(error)) return error
  const failure = error as RequestErrorLike
  const answered = failure.response !== undefined
  const status = answered && typeof failure.status === 'number' && failure.status > 0 ? failure.status : undefined
  const remaining = failure.response?.headers?.['x-ratelimit-remaining']
  return gitHostError({
    provider: 'github', what, status, cause: error, apiUrl: octokit.request.endpoint.DEFAULTS.baseUrl,
    rateLimited: (status === 403 || status === 429) && String(remaining) === '0',
  })
}
