import type { Provider } from '../../machines/pull-request-event.ts'
import { redactUrl, redactUrlsIn } from '../log/redact-url.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'

/** What a failed git-host API call looked like; enough to tell the operator what to change. */
export interface FailedCall {
  provider: Provider
  /** e.g. `GET /repos/acme/api/hooks`; never carries a token. */
  what: string
  status: number | undefined
  /** Bitbucket only: whether BITBUCKET_AUTH_EMAIL selected HTTP Basic. */
  basicAuth?: boolean
  /** GitHub answers 403 (or 429) with x-ratelimit-remaining: 0 when the token's hourly budget is spent. */
  rateLimited?: boolean
  /** A 429's Retry-After (or its default), for callers that wait it out (reconcile). */
  retryAfterMs?: number
  /** GITHUB_API_URL or BITBUCKET_API_URL as used: named when the host could not be reached at all. */
  apiUrl?: string
  cause?: unknown
  /** A host's own words and fixes; GitHub's and Bitbucket's are below, a newer host passes its own. */
  words?: HostErrorWords
  /** The host's reason from the answer's body (`message`, `error_description`…), for a person's refused action. */
  hostSays?: string | undefined
}

/** What the messages of a host's failed calls say, for a host that brings its own. */
export interface HostErrorWords {
  name: string
  apiUrlVariable: string
  authFix: string
  scopeFix: string
}

const API_URL_VARIABLE: Record<Provider, string> = { github: 'GITHUB_API_URL', bitbucket: 'BITBUCKET_API_URL' }

/** Why a request got no answer: the socket error code (ECONNREFUSED, ENOTFOUND…) or a timeout, however deep fetch nested it. */
export function networkCause(error: unknown): string {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    const { code, name } = current as { code?: unknown; name?: unknown }
    if (typeof code === 'string') return code
    if (name === 'TimeoutError' || name === 'AbortError') return 'timed out'
    current = (current as { cause?: unknown }).cause
  }
  return error instanceof Error ? error.message : String(error)
}

export const BITBUCKET_SCOPES = {
  accessToken: 'repository, pullrequest, webhook',
  apiToken: 'read:repository:bitbucket, read:pullrequest:bitbucket, read:webhook:bitbucket',
} as const

function authFix(call: FailedCall): string {
  if (call.words) return call.words.authFix
  if (call.provider === 'github') {
    return 'GITHUB_TOKEN is not valid or has expired; create a new token and set GITHUB_TOKEN'
  }
  // The spec's rule: a 401 from Bitbucket is a scheme/token mismatch, not a missing scope.
  return call.basicAuth
    ? 'Bitbucket refused HTTP Basic auth: with BITBUCKET_AUTH_EMAIL set, BITBUCKET_TOKEN must be a scoped API token of that Atlassian account ' +
      '(a repository or workspace access token must be used without BITBUCKET_AUTH_EMAIL; unset it). Check the email for stray quotes or spaces.'
    : 'Bitbucket refused the Bearer token: BITBUCKET_TOKEN must be a repository or workspace access token ' +
      '(a scoped API token needs BITBUCKET_AUTH_EMAIL set to its account email, which switches to HTTP Basic)'
}

function scopeFix(call: FailedCall): string {
  if (call.words) return call.words.scopeFix
  if (call.provider === 'github') {
    return 'GITHUB_TOKEN lacks access to this repository: a fine-grained token needs "Webhooks" and "Pull requests" read ' +
      '(read and write on Webhooks for create-webhook); a classic token needs the repo and admin:repo_hook scopes'
  }
  return call.basicAuth
    ? `the API token lacks scopes; create one with ${BITBUCKET_SCOPES.apiToken}`
    : `the access token lacks scopes; create one with ${BITBUCKET_SCOPES.accessToken}`
}

/** Turns a failed call into a PrheraldError whose code callers branch on and whose fix the operator reads. */
export function gitHostError(call: FailedCall): PrheraldError {
  const host = call.words?.name ?? (call.provider === 'github' ? 'GitHub' : 'Bitbucket')
  const says = call.hostSays === undefined ? '' : `: ${call.hostSays}`
  const options = {
    cause: call.cause,
    ...(call.retryAfterMs === undefined ? {} : { retryAfterMs: call.retryAfterMs }),
    ...(call.hostSays === undefined ? {} : { hostSays: call.hostSays }),
  }
  if (call.rateLimited) {
    return new PrheraldError('git_host', `${host} API rate limit reached on ${call.what}`, { ...options, fix: 'wait for the limit to reset (x-ratelimit-reset), then retry' })
  }
  switch (call.status) {
    case 401:
      return new PrheraldError('git_host_auth', `${host} answered 401 to ${call.what}${says}`, { ...options, fix: authFix(call) })
    case 403:
      return new PrheraldError('git_host_scope', `${host} answered 403 to ${call.what}${says}`, { ...options, fix: scopeFix(call) })
    case 404:
      return new PrheraldError('git_host_not_found', `${host} answered 404 to ${call.what}${says}`, {
        ...options,
        fix: 'check the owner and repository names; a private repository the token cannot see also answers 404',
      })
    case undefined:
      // No HTTP answer at all (refused, unknown host, timeout): say where we tried, as the Slack checks do.
      return new PrheraldError('git_host', `${host} unreachable at ${call.apiUrl ? redactUrl(call.apiUrl) : 'its API URL'} (${redactUrlsIn(networkCause(call.cause))}) on ${call.what}`, {
        ...options,
        fix: `check the network path to ${host}, or ${call.words?.apiUrlVariable ?? API_URL_VARIABLE[call.provider]} if you set it` +
          (call.provider === 'github' ? ' (GitHub Enterprise Server: https://HOST/api/v3)' : ''),
      })
    case 400: case 405: case 409: case 422:
      // The host understood and said no, with its reason: retrying changes nothing; the person reads why.
      if (call.hostSays !== undefined) {
        return new PrheraldError('git_host_refused', `${host} refused ${call.what}${says}`, { ...options, fix: `${host}'s answer above says why` })
      }
      return new PrheraldError('git_host', `${host} answered ${call.status} to ${call.what}`, { ...options, fix: 'retry later; if it persists, check the host status page' })
    default:
      return new PrheraldError('git_host', `${host} answered ${call.status} to ${call.what}${says}`, { ...options, fix: 'retry later; if it persists, check the host status page' })
  }
}

/**
 * An error after which no further call of a run can succeed, so the run stops instead of failing every
 * pull request (and every webhook log) the same way: a rate limit held longer than a run waits, and a token
 * the host refuses (401).
 */
export function stopsRun(error: unknown): error is PrheraldError {
  return isPrheraldError(error, 'git_host_rate_limited') || isPrheraldError(error, 'git_host_auth')
}
