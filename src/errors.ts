/**
 * The one error type of prherald. `code` is what callers branch on (never the message text);
 * `http/` is the only place that maps codes to HTTP statuses.
 */
export type ErrorCode =
  | 'config_invalid'
  | 'config_missing'
  | 'env_missing'
  | 'database'
  | 'migration'
  | 'body_too_large'
  | 'bad_signature'
  | 'bad_json'
  | 'slack_transient'
  | 'slack_permanent'
  | 'slack_message_not_found'
  | 'slack_outcome_unknown' // a post that may or may not be in the channel: timeout, reset, 5xx
  | 'git_host' // unreachable, 5xx, rate limited: worth retrying later
  | 'git_host_auth' // 401: the token or its auth scheme is wrong
  | 'git_host_scope' // 403: the token lacks a scope or permission
  | 'git_host_not_found' // 404: no such repository or pull request, or the token cannot see it
  | 'lock' // config.lock cannot be read or written
  | 'usage' // a command-line argument is malformed
  | 'validation_failed' // a start-up check of a mapping entry answered FAIL

export class PrheraldError extends Error {
  override readonly name = 'PrheraldError'
  readonly code: ErrorCode
  /** What the operator should do about it, when there is something to do. */
  readonly fix: string | undefined

  constructor(code: ErrorCode, message: string, options: { fix?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.fix = options.fix
  }
}

export function isPrheraldError(error: unknown, code?: ErrorCode): error is PrheraldError {
  return error instanceof PrheraldError && (code === undefined || error.code === code)
}
