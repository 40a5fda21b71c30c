import { isPrheraldError, type ErrorCode } from '../errors.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'

/**
 * How one Slack call ended, as counted. `rate_limited` is an HTTP 429; `timeout` a call that got no answer
 * in time; `transient` a 5xx, a reset or Slack's own transient errors; `outcome_unknown` a post that may be in
 * the channel; `refused` a permanent error for the channel or message (channel_not_found, is_archived, …);
 * `auth` Slack refusing the token; `not_found` a message that is gone; `interrupted` a call cut by shutdown.
 */
export type SlackCallOutcome =
  | 'ok' | 'rate_limited' | 'timeout' | 'transient' | 'outcome_unknown' | 'refused' | 'auth' | 'not_found' | 'interrupted' | 'error'

const BY_CODE: Partial<Record<ErrorCode, SlackCallOutcome>> = {
  slack_rate_limited: 'rate_limited',
  slack_transient: 'transient',
  slack_outcome_unknown: 'outcome_unknown',
  slack_permanent: 'refused',
  slack_auth: 'auth',
  slack_message_not_found: 'not_found',
}

/** Codes and names the Web API client's fetch and undici give a request that ran out of time. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ECONNABORTED', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

/** Whether anything in the error's chain (`cause`, or the Web API client's `original`) is a timeout. */
function isTimeout(error: unknown): boolean {
  const seen = new Set<unknown>()
  const walk = (e: unknown, depth: number): boolean => {
    if (!e || typeof e !== 'object' || depth > 6 || seen.has(e)) return false
    seen.add(e)
    const { name, code, cause, original } = e as { name?: unknown; code?: unknown; cause?: unknown; original?: unknown }
    if (name === 'TimeoutError' || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return true
    return walk(cause, depth + 1) || walk(original, depth + 1)
  }
  return walk(error, 0)
}

/** `error` undefined is a call that went through. */
export function slackCallOutcome(error?: unknown): SlackCallOutcome {
  if (error === undefined) return 'ok'
  if (error instanceof ShutdownInterrupt) return 'interrupted'
  if (!isPrheraldError(error)) return 'error'
  if (error.code !== 'slack_rate_limited' && isTimeout(error)) return 'timeout'
  return BY_CODE[error.code] ?? 'error'
}
