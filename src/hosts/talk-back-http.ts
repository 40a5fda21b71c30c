import { isPrheraldError, PrheraldError } from '../errors.ts'
import { gitHostError, type HostErrorWords } from './git-host-error.ts'
import { markerLine, type HostTokens } from './talk-back-contract.ts'

/**
 * The HTTP under every host's talk-back calls: plain `fetch` with a timeout, JSON or form bodies, and errors
 * that carry the host's own reason (`hostSays`). The Authorization header is built by the caller and never
 * appears in an error: `what` names the method and path only.
 */
export interface TalkBackHttp {
  provider: string
  words: HostErrorWords
  /** Named when the host cannot be reached at all. */
  baseUrl: string
  /** The host's reason in an error answer's body, in its words. */
  reason(body: unknown): string | undefined
  headers?: Readonly<Record<string, string>>
  timeoutMs?: number
  /** The host's own token-endpoint codes for a grant that is over, beside RFC 6749's (GRANT_OVER). */
  grantOver?: ReadonlySet<string>
}

export interface TalkBackRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: string
  authorization?: string
  json?: unknown
  form?: Readonly<Record<string, string>>
  /** The most the answer may weigh; ANSWER_BYTES unless said. */
  maxBytes?: number
}

const pathOf = (url: string) => new URL(url).pathname

/** What any talk-back answer may weigh: a page of 100 comments at GitHub's 65,536 characters each fits. */
export const ANSWER_BYTES = 32 * 1024 * 1024
/** A token endpoint's answer is a few hundred bytes: more is not one, and is not read on (as webhook bodies are bounded). */
export const TOKEN_ANSWER_BYTES = 64 * 1024

/** An answer that is not JSON (a proxy's HTML page, a truncated body): nothing the host said can be read from it. */
const UNREADABLE = Symbol('unreadable')

/** The answer's text, read no further than `maxBytes`: an endless or huge answer is cut off, never held whole. */
async function textOf(response: Response, maxBytes: number, tooLarge: () => PrheraldError): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN)
  if (declared > maxBytes) {
    await response.body?.cancel()
    throw tooLarge()
  }
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function parsed(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return UNREADABLE
  }
}

/** Where a redirect leads, when it is one a call may follow with its method (GitHub moves renamed repositories with 307). */
function followable(response: Response, url: string, method: string): string | undefined {
  const location = response.headers.get('location')
  if (location === null) return undefined
  const keepsMethod = response.status === 307 || response.status === 308
  const readOnly = method === 'GET' && (response.status === 301 || response.status === 302 || response.status === 303)
  return keepsMethod || readOnly ? new URL(location, url).toString() : undefined
}

/** One call; the parsed answer (undefined when empty), or the host's refusal as a PrheraldError. */
export async function talkBackCall<T>(http: TalkBackHttp, request: TalkBackRequest): Promise<T> {
  const what = `${request.method} ${pathOf(request.url)}`
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'prherald', ...http.headers }
  if (request.authorization) headers.authorization = request.authorization
  let body: string | undefined
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(request.form as Record<string, string>).toString()
  } else if (request.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(request.json)
  }
  let response: Response
  // Redirects are followed here, and only on the same origin: the person's token must never be sent elsewhere.
  for (let url = request.url, hops = 0; ; hops++) {
    try {
      response = await fetch(url, { method: request.method, headers, ...(body === undefined ? {} : { body }), redirect: 'manual', signal: AbortSignal.timeout(http.timeoutMs ?? 10_000) })
    } catch (cause) {
      throw gitHostError({ provider: http.provider, what, status: undefined, cause, apiUrl: http.baseUrl, words: http.words })
    }
    const next = followable(response, url, request.method)
    if (next === undefined) break
    await response.body?.cancel()
    if (new URL(next).origin !== new URL(url).origin || hops === 3) {
      throw new PrheraldError('git_host', `${http.words.name} redirected ${what} to ${new URL(next).origin}; not followed`, {
        fix: `check ${http.words.apiUrlVariable} (and the web address): prherald sends a person's token only to the address it was configured with`,
      })
    }
    url = next
  }
  const maxBytes = request.maxBytes ?? ANSWER_BYTES
  const answer = parsed(await textOf(response, maxBytes, () => new PrheraldError('git_host', `${http.words.name} answered ${what} with more than ${maxBytes} bytes; not read`, {
    fix: `check ${http.words.apiUrlVariable} (and the web address): it should lead to ${http.words.name} itself, not to a proxy or another service`,
  })))
  if (!response.ok) {
    // An HTML error page from a proxy: no words of the host's to show.
    throw gitHostError({ provider: http.provider, what, status: response.status, words: http.words, hostSays: answer === UNREADABLE ? undefined : http.reason(answer) })
  }
  if (answer === UNREADABLE) throw unreadable(http, what)
  return answer as T
}

/** A 200 whose body is not the JSON the host sends: something between prherald and the host answered, or it broke off. */
function unreadable(http: TalkBackHttp, what: string): PrheraldError {
  return new PrheraldError('git_host', `${http.words.name} answered ${what} with something prherald cannot read (not JSON)`, {
    fix: `check ${http.words.apiUrlVariable} (and the web address): it should lead to ${http.words.name} itself; a proxy's page is not its answer`,
  })
}

/** RFC 6749's token answer, as the three hosts send it. */
interface TokenAnswer {
  access_token?: unknown
  refresh_token?: unknown
  expires_in?: unknown
  /** GitHub: the refresh token's own lifetime (six months). */
  refresh_token_expires_in?: unknown
  error?: unknown
  error_description?: unknown
}

const seconds = (value: unknown, now: number) => (typeof value === 'number' && value > 0 ? now + value * 1000 : undefined)

/**
 * The token endpoint's error codes that say the person's grant is over, and only those: RFC 6749 5.2's
 * `invalid_grant` ("the provided authorization grant … or refresh token is invalid, expired, revoked", GitLab's
 * Doorkeeper and Bitbucket answer it), GitHub's `bad_refresh_token` and `bad_verification_code` (GitHub's
 * "Troubleshooting OAuth app access token request errors", and its refresh docs). Anything else (`invalid_client`,
 * GitHub's `incorrect_client_credentials`: "the client_id and/or client_secret passed are incorrect",
 * `unauthorized_client`, a 5xx, an answer with no error code) says nothing about the person: the client is
 * wrong or the host is unwell, which the operator fixes, and the link stays.
 */
const GRANT_OVER = new Set(['invalid_grant', 'bad_refresh_token', 'bad_verification_code'])
const grantOver = (http: TalkBackHttp, code: string) => GRANT_OVER.has(code) || http.grantOver?.has(code) === true

/**
 * The token endpoint's codes that say it did not take the client's id or secret: RFC 6749 5.2's `invalid_client`
 * ("Client authentication failed", GitLab's Doorkeeper), GitHub's `incorrect_client_credentials` ("The client_id
 * and/or client_secret passed are incorrect", "Troubleshooting OAuth app access token request errors"), and
 * `unauthorized_client`, which Bitbucket Cloud answers with "Invalid OAuth client credentials".
 */
const CLIENT_REFUSED = new Set(['invalid_client', 'incorrect_client_credentials', 'unauthorized_client'])
/** The `git_host_client` errors that are the host refusing the client itself, not a 5xx or an answer prherald cannot read. */
const refusedClients = new WeakSet<PrheraldError>()

/** Whether a token endpoint's error says the OAuth client id or secret is wrong (prherald-doctor's FAIL, not a WARN). */
export function clientRefused(error: unknown): boolean {
  return error instanceof PrheraldError && refusedClients.has(error)
}

const oauthError = (body: unknown): string | undefined => {
  const error = (body as { error?: unknown } | null | undefined)?.error
  return typeof error === 'string' ? error : undefined
}

/**
 * A token endpoint's call (code exchange or refresh). The grant refused (GRANT_OVER) is `git_host_auth`: that
 * grant will never work again. The client refused, or no answer prherald can read, is `git_host_client`.
 */
export async function tokenCall(http: TalkBackHttp, request: TalkBackRequest, grant: 'code' | 'refresh', now: number): Promise<HostTokens> {
  let answer: TokenAnswer
  // The error code of a refusal's body, beside the words `reason` takes from it.
  let code: string | undefined
  const reading: TalkBackHttp = { ...http, reason: (body) => { code = oauthError(body); return http.reason(body) } }
  try {
    answer = await talkBackCall<TokenAnswer>(reading, { ...request, maxBytes: TOKEN_ANSWER_BYTES })
  } catch (error) {
    if (!(error instanceof PrheraldError)) throw error
    if (code !== undefined && grantOver(http, code)) throw refusedGrant(http, grant, error.hostSays, error)
    throw clientTrouble(http, error.hostSays ?? error.message, error, code)
  }
  // No answer, or one without a token or an error: the host did not say no, and nothing can be read from it.
  if (answer === undefined || answer === null || typeof answer !== 'object' || (typeof answer.error !== 'string' && typeof answer.access_token !== 'string')) {
    throw clientTrouble(http, 'an answer prherald cannot read', unreadable(http, `${request.method} ${pathOf(request.url)}`))
  }
  if (typeof answer.error === 'string' || typeof answer.access_token !== 'string') {
    // GitHub answers its refusals with a 200 and an `error`.
    const says = typeof answer.error_description === 'string' ? answer.error_description : typeof answer.error === 'string' ? answer.error : undefined
    if (!grantOver(http, String(answer.error))) throw clientTrouble(http, says ?? String(answer.error), undefined, String(answer.error))
    throw refusedGrant(http, grant, says)
  }
  return {
    accessToken: answer.access_token,
    refreshToken: typeof answer.refresh_token === 'string' && answer.refresh_token !== '' ? answer.refresh_token : undefined,
    expiresAt: seconds(answer.expires_in, now),
    refreshExpiresAt: seconds(answer.refresh_token_expires_in, now),
  }
}

function refusedGrant(http: TalkBackHttp, grant: 'code' | 'refresh', hostSays: string | undefined, cause?: unknown): PrheraldError {
  const what = grant === 'code' ? 'the authorization code' : 'the refresh token'
  return new PrheraldError('git_host_auth', `${http.words.name} refused ${what}${hostSays ? `: ${hostSays}` : ''}`, {
    cause,
    ...(hostSays ? { hostSays } : {}),
    fix: grant === 'code'
      ? 'start the link again (/prherald link); check the OAuth client id, secret and callback URL if it keeps failing'
      : 'the person links again with /prherald link',
  })
}

/** The token endpoint did not take prherald's OAuth client, or could not answer: nobody's link is at fault. */
function clientTrouble(http: TalkBackHttp, says: string, cause?: unknown, code?: string): PrheraldError {
  const trouble = new PrheraldError('git_host_client', `${http.words.name}'s token endpoint did not take prherald's OAuth client: ${says}`, {
    cause,
    fix: `check the OAuth client id and secret (a secret rotated at ${http.words.name} must be set here too) and that ${http.words.name} is reachable; people's links are kept`,
  })
  if (code !== undefined && CLIENT_REFUSED.has(code)) refusedClients.add(trouble)
  return trouble
}

/**
 * The pull request's head moved past the commit the review form showed: nothing is sent, and the person is
 * told what changed. `now` is the head the host names, when it does.
 */
export function headMoved(shown: string, now?: string): PrheraldError {
  const short = (sha: string) => sha.slice(0, 7)
  const hostSays = `new commits were pushed since you opened this${now ? ` (the head is now ${short(now)}, you saw ${short(shown)})` : ''}; nothing was sent: look at them, then open the review again from the message`
  return new PrheraldError('git_host_refused', `the head moved from ${short(shown)}${now ? ` to ${short(now)}` : ''} since the review form was opened`, { hostSays, fix: 'the person looks at the new commits and reviews again' })
}

/** HTTP Basic for an OAuth client (GitHub's revocation, Bitbucket's token endpoint). */
export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/** A base URL without its trailing slashes. */
export const trimBase = (url: string) => url.replace(/\/+$/, '')

/** A delete whose target is already gone did what was asked. */
export async function deleted(call: Promise<unknown>): Promise<void> {
  try {
    await call
  } catch (error) {
    if (!isPrheraldError(error, 'git_host_not_found')) throw error
  }
}

/**
 * The id of the comment whose last line is `marker`'s line (reply-body.ts), if one of `list` has it. Only the
 * last line: a marker quoted anywhere else in a comment (someone else's text) names nothing.
 */
export function markedComment(list: ReadonlyArray<{ id: number | string; body: string }>, marker: string): string | undefined {
  const line = markerLine(marker)
  const found = list.find((c) => c.body.trimEnd().split(/\r?\n/).at(-1)?.trim() === line)
  return found === undefined ? undefined : String(found.id)
}
