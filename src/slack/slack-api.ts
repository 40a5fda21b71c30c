import { ErrorCode, LogLevel, WebClient, type Logger as SlackLogger, type RetryOptions } from '@slack/web-api'
import { PrheraldError } from '../errors.ts'
import type { Logger } from '../log/logger.ts'
import { createSlackFetch } from './slack-fetch.ts'

/** The one place a Slack Web API client is built: every caller gets the shared fetch, our logger and the same limits. */
export interface SlackApiOptions {
  token: string
  /** SLACK_API_URL, with its trailing slash. */
  apiUrl: string
  /** Where the client's own warnings go; none when absent (the operator commands print their own lines). */
  logger?: Logger
  /** Retries inside one call (5xx, network); none when absent. A 429 is never waited out inside the client. */
  retry?: RetryOptions
  timeoutMs?: number
}

/** What one call answered: Slack's data whatever `ok` says (its error in `error`; `http_<status>` for a status outside 2xx). */
export interface SlackAnswer {
  data: { ok?: boolean; error?: string; [key: string]: unknown }
  /** The token's granted scopes (`x-oauth-scopes`, which WebClient returns as `response_metadata.scopes`); undefined when not reported. */
  scopes: string[] | undefined
}

export const DEFAULT_SLACK_TIMEOUT_MS = 10_000

// One keep-alive fetch over node:http for every client (src/slack/slack-fetch.ts): built at the first call,
// so a start that only checks the token sets up nothing else (docs/performance.md).
let sharedFetch: typeof fetch | undefined
const slackFetch: typeof fetch = (input, init) => (sharedFetch ??= createSlackFetch())(input, init)

export function createWebClient(options: SlackApiOptions): WebClient {
  return new WebClient(options.token, {
    slackApiUrl: options.apiUrl,
    fetch: slackFetch,
    logger: slackLogger(options.logger),
    timeout: options.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS,
    // A 429 surfaces as an error instead of being waited out inside the client, so the pacer can hold that
    // method (or channel) for Retry-After while calls on other budgets go on.
    rejectRateLimitedCalls: true,
    retryConfig: options.retry ?? { retries: 0 },
  })
}

/**
 * One call whose answer the caller reads, `ok` or not (the checks, setup, smoke): Slack's refusal and an
 * HTTP status come back as data; it throws only when Slack cannot be reached (the call's TimeoutError or the
 * network's "fetch failed", with the socket's error as its cause).
 */
export async function callSlackApi(client: WebClient, method: string, params: Record<string, unknown> = {}): Promise<SlackAnswer> {
  try {
    const data = (await client.apiCall(method, params)) as SlackAnswer['data']
    return { data, scopes: scopesOf(data) }
  } catch (error) {
    const failure = error as { code?: unknown; data?: SlackAnswer['data']; statusCode?: unknown; original?: unknown }
    if (failure.code === ErrorCode.PlatformError && failure.data) return { data: failure.data, scopes: scopesOf(failure.data) }
    if (failure.code === ErrorCode.HTTPError) return { data: { ok: false, error: `http_${String(failure.statusCode)}` }, scopes: undefined }
    if (failure.code === ErrorCode.RateLimitedError) return { data: { ok: false, error: 'http_429' }, scopes: undefined }
    throw failure.code === ErrorCode.RequestError && failure.original ? failure.original : error
  }
}

function scopesOf(data: SlackAnswer['data']): string[] | undefined {
  const scopes = (data.response_metadata as { scopes?: unknown } | undefined)?.scopes
  return Array.isArray(scopes) ? scopes.map(String) : undefined
}

/**
 * Posts a request's late answer to its `response_url` (the caller has checked that it is Slack's: see
 * src/personal/respond-later.ts) through the same fetch as every Slack call; false when that server refused
 * it. The URL is a credential for that one answer: a failure to send throws an error that names only its
 * kind, since fetch's own errors quote the URL (with any user-info) and its cause the address.
 */
export async function postToResponseUrl(url: string, body: Record<string, unknown>, timeoutMs = 5000): Promise<boolean> {
  try {
    const response = await slackFetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
    })
    await response.text()
    return response.ok
  } catch (error) {
    throw new PrheraldError('slack_transient', `the answer could not be sent to the command's response_url (${failureKind(error)})`)
  }
}

/**
 * Sends a file's bytes to the upload URL files.getUploadURLExternal gave, through the same fetch as every
 * Slack call. Slack's docs (docs.slack.dev/reference/methods/files.getUploadURLExternal): "Upload a file by
 * making a POST request to the upload URL", "Files can be sent as raw bytes or can be multipart form encoded.
 * Slack will return HTTP 200 if the upload is successful; a non-200 response indicates a failure." The URL is
 * another host than the API's and a credential for this one file: a failure names only its kind. Nothing is
 * shared before files.completeUploadExternal, so a failure here is safe to try again (`slack_transient`).
 */
export async function postFileBytes(url: string, bytes: Uint8Array, timeoutMs = DEFAULT_SLACK_TIMEOUT_MS): Promise<void> {
  let status: number
  try {
    const response = await slackFetch(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes, signal: AbortSignal.timeout(timeoutMs) })
    await response.text()
    status = response.status
  } catch (error) {
    throw new PrheraldError('slack_transient', `the chart could not be sent to Slack's upload URL (${failureKind(error)})`)
  }
  if (status !== 200) throw new PrheraldError('slack_transient', `Slack's upload URL answered HTTP ${status} to the chart`)
}

/** `TimeoutError`, `ECONNREFUSED`, `TypeError`: what went wrong, without the message that may quote the URL. */
function failureKind(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined
  if (typeof cause?.code === 'string' && /^[A-Z_]+$/.test(cause.code)) return cause.code
  return error instanceof Error && /^[A-Za-z]+$/.test(error.name) ? error.name : 'unknown'
}

/** Routes the Web API client's own log lines into ours, dropping its debug lines (they carry request bodies). */
function slackLogger(logger: Logger | undefined): SlackLogger {
  const text = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : String(m))).join(' ')
  const quiet = () => {}
  return {
    debug: quiet,
    info: logger ? (...msg) => logger.debug('slack client', { detail: text(msg) }) : quiet,
    warn: logger ? (...msg) => logger.warn('slack client', { detail: text(msg) }) : quiet,
    error: logger ? (...msg) => logger.error('slack client', { detail: text(msg) }) : quiet,
    setLevel: quiet,
    getLevel: () => LogLevel.INFO,
    setName: quiet,
  }
}
