import { githubError, type GithubClient } from './client.ts'
import { RateLimited, type GateClock, type HostRateGate } from '../host-rate-gate.ts'

type Headers = Record<string, string | number | undefined>

export interface GithubAnswer<T> {
  data: T
  headers: Headers
}

/** One GitHub call through the gate; `url` is a path under GITHUB_API_URL or an absolute `next` link. */
export type GithubRequest = <T>(method: 'GET' | 'POST', url: string) => Promise<GithubAnswer<T>>

const header = (headers: Headers | undefined, name: string) => {
  const value = headers?.[name]
  return value === undefined ? undefined : String(value)
}

/**
 * When GitHub's budget for this token is spent (x-ratelimit-remaining 0), the unix ms at which it refills
 * (x-ratelimit-reset, in seconds); undefined while budget is left.
 */
export function githubResetAt(headers: Headers | undefined): number | undefined {
  if (header(headers, 'x-ratelimit-remaining') !== '0') return undefined
  const reset = Number(header(headers, 'x-ratelimit-reset'))
  return Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined
}

/**
 * GitHub calls that keep to the token's budget: every answer's x-ratelimit-* headers are read, an answer
 * that spends the last request holds every further call until the reset, and a 403/429 "rate limited"
 * (primary: remaining 0; secondary: Retry-After) is waited out and tried again through the gate.
 */
export function githubRequests(octokit: GithubClient, gate: HostRateGate, clock: GateClock): GithubRequest {
  return async <T>(method: 'GET' | 'POST', url: string) => {
    const what = `${method} ${url.replace(/^https?:\/\/[^/]+/, '').split('?')[0]}`
    return gate.run(async () => {
      try {
        const answer = await octokit.request({ method, url })
        const resetAt = githubResetAt(answer.headers as Headers)
        if (resetAt !== undefined) gate.hold(resetAt)
        return { data: answer.data as T, headers: answer.headers as Headers }
      } catch (error) {
        const failure = error as { status?: unknown; response?: { headers?: Headers } }
        const headers = failure.response?.headers
        if (failure.status === 403 || failure.status === 429) {
          const retryAfter = Number(header(headers, 'retry-after'))
          const resumeAt = githubResetAt(headers) ?? (Number.isFinite(retryAfter) && retryAfter > 0 ? clock.now() + retryAfter * 1000 : undefined)
          if (resumeAt !== undefined) throw new RateLimited(resumeAt)
        }
        throw githubError(octokit, what, error)
      }
    })
  }
}

/** The URL of the page after this one, from GitHub's Link header. */
export function nextLink(headers: Headers): string | undefined {
  return /<([^>]+)>;\s*rel="next"/.exec(header(headers, 'link') ?? '')?.[1]
}
