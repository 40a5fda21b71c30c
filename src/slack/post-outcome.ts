import { ErrorCode } from '@slack/web-api'

/**
 * Slack errors after which a message may be in the channel although the call failed: the request may have
 * reached Slack. Its own docs say so of these two ("it's possible some aspect of the operation succeeded").
 */
const PLATFORM_ERRORS_THAT_MAY_HAVE_POSTED = new Set(['internal_error', 'fatal_error'])

/** Network failures that happen before a byte of the request is sent: nothing can have reached Slack. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])

/**
 * The client's own 429 handling throws a bare Error: after waiting out Retry-After (and then wraps it as a
 * request error), or at once when the header is missing. Network failures are TypeErrors with a cause,
 * timeouts DOMExceptions, so a bare Error is a 429: Slack refused the request.
 */
function isBareError(error: unknown): boolean {
  return error instanceof Error && error.constructor === Error && error.cause === undefined && (error as { code?: unknown }).code === undefined
}

function causeCodes(error: unknown): string[] {
  const codes: string[] = []
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') codes.push(code)
  }
  return codes
}

/**
 * Could a chat.postMessage that failed with `error` (as thrown by the Web API client) have posted anyway?
 * Known not posted: an answer from Slack that refuses the call (`ok: false`, 429, another 4xx) and a
 * connection that never opened. Unknown: a timeout, a reset or closed connection, a 5xx (Slack's edge may
 * answer so after the request reached it), and anything this function does not recognise, because
 * treating an unknown outcome as "not posted" is what duplicates a message, while the opposite only costs
 * one look at the channel's history.
 */
export function mayHavePosted(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  if (code === ErrorCode.PlatformError) {
    const slackError = (error as { data?: { error?: unknown } }).data?.error
    return typeof slackError === 'string' && PLATFORM_ERRORS_THAT_MAY_HAVE_POSTED.has(slackError)
  }
  if (code === ErrorCode.RateLimitedError) return false
  if (code === ErrorCode.HTTPError) return (error as { statusCode?: number }).statusCode! >= 500
  if (code === ErrorCode.RequestError) {
    const original = (error as { original?: unknown }).original
    if (isBareError(original)) return false
    return !causeCodes(original).some((c) => NOT_SENT_CODES.has(c))
  }
  return !isBareError(error)
}

/**
 * Slack's side answered (a 5xx, `internal_error`): the request is over, so whatever it did is in the channel
 * already. Only a call that got no answer (a timeout, a reset) may still be carried out later.
 */
function slackAnswered(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (code === ErrorCode.HTTPError || code === ErrorCode.PlatformError) return true
  }
  return false
}

/**
 * The pause before looking for a post (or reply) whose outcome is unknown, on its `attempt`th failure:
 * backoff from `baseMs`, doubling up to `maxMs`. A call that got no answer also gets `settleMs` (the client
 * timeout), since Slack may finish it after prherald gave up; a 5xx needs no such wait.
 */
export function lookupDelayMs(error: unknown, attempt: number, retry: { baseMs: number; maxMs: number }, settleMs: number): number {
  const backoff = Math.min(retry.maxMs, retry.baseMs * 2 ** (attempt - 1))
  return slackAnswered(error) ? backoff : Math.max(settleMs, backoff)
}
