/**
 * The one error type of prherald. `code` is what callers branch on (never the message text);
 * `http/` is the only place that maps codes to HTTP statuses.
 */
export type ErrorCode =
  | 'config_invalid'
  | 'config_missing'
  | 'env_missing'
  | 'database'
  | 'database_in_use' // another prherald-server holds this SQLite file
  | 'database_busy' // another program held a write lock longer than a delivery can wait
  | 'database_gone' // the file was deleted or replaced under the running server
  | 'database_provider' // the database serves another git_provider
  | 'migration'
  | 'copy_target_not_empty' // prherald-migrate copy refuses a PostgreSQL database that already holds data
  | 'body_too_large'
  | 'bad_signature'
  | 'stale_timestamp' // a Slack request signed more than five minutes from our clock (a replay, or a skewed clock)
  | 'bad_json'
  | 'client_aborted' // the client closed the connection (or was dropped for trickling) before its request ended
  | 'server_busy' // too many unauthenticated bodies are being read at once: this one is shed before it is read
  | 'slack_transient'
  | 'slack_rate_limited' // HTTP 429: the pacer holds the budget for retryAfterMs and tries again
  | 'slack_permanent'
  | 'slack_message_not_found'
  | 'slack_message_pending' // a thread reply to a message whose post is in flight: its ts is not stored yet
  | 'slack_outcome_unknown' // a post that may or may not be in the channel: timeout, reset, 5xx
  | 'slack_auth' // Slack refuses the token itself: every call fails until SLACK_BOT_TOKEN is fixed
  | 'git_host' // unreachable, 5xx, rate limited: worth retrying later
  | 'git_host_auth' // 401: the token or its auth scheme is wrong
  | 'git_host_scope' // 403: the token lacks a scope or permission
  | 'git_host_not_found' // 404: no such repository or pull request, or the token cannot see it
  | 'git_host_rate_limited' // the token's budget is spent for longer than a command waits (reconcile)
  | 'git_host_refused' // 4xx with the host's reason: a person's action it does not allow (own pull request, merged, newer head)
  | 'token_sealed' // a linked account's tokens do not open under the configured keys: that link cannot be used here
  | 'git_host_client' // the OAuth token endpoint refused prherald's client (id or secret) or could not answer: the operator's to fix, no person's grant is at fault
  | 'lock' // config.lock cannot be read or written
  | 'usage' // a command-line argument is malformed
  | 'cancelled' // the person at the terminal pressed Ctrl+C at a question (prherald-setup)
  | 'validation_failed' // a start-up check of a mapping entry answered FAIL
  | 'control' // the server's control channel failed a command or could not be reached
  | 'stored_version' // a stored event or lifecycle written by a newer prherald
  | 'tunnel' // npm run dev --tunnel: cloudflared could not be installed or open a public URL
  | 'ack_thread' // the acknowledging thread (server.ack_thread) ended, or answered out of turn

export class PrheraldError extends Error {
  override readonly name = 'PrheraldError'
  readonly code: ErrorCode
  /** What the operator should do about it, when there is something to do. */
  readonly fix: string | undefined
  /** slack_rate_limited: how long Slack asked to wait (its Retry-After). */
  readonly retryAfterMs: number | undefined
  /** A git host's refusal in its own words, shown to the person who acted as it is (never parsed). */
  readonly hostSays: string | undefined

  constructor(code: ErrorCode, message: string, options: { fix?: string; cause?: unknown; retryAfterMs?: number; hostSays?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.fix = options.fix
    this.retryAfterMs = options.retryAfterMs
    this.hostSays = options.hostSays
  }
}

export function isPrheraldError(error: unknown, code?: ErrorCode): error is PrheraldError {
  return error instanceof PrheraldError && (code === undefined || error.code === code)
}
