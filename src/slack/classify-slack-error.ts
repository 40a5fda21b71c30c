import { ErrorCode } from '@slack/web-api'
import { PrheraldError } from '../errors.ts'

/** What to tell the operator for Slack errors that retrying cannot fix. */
export const PERMANENT_SLACK_ERRORS: Record<string, string> = {
  channel_not_found: 'check the channel ID in config.yaml; for a private channel, invite the bot first',
  not_in_channel: 'invite the bot to the channel (/invite @your-bot in Slack)',
  is_archived: 'unarchive the channel or map the repository to another channel',
  invalid_auth: 'SLACK_BOT_TOKEN is not valid; copy the Bot User OAuth Token (xoxb-…) from the Slack app',
  not_authed: 'SLACK_BOT_TOKEN is empty; set it to the Bot User OAuth Token (xoxb-…)',
  token_revoked: 'the Slack token was revoked; reinstall the app and set the new SLACK_BOT_TOKEN',
  token_expired: 'the Slack token expired; prherald needs a non-expiring bot token: turn off token rotation or reinstall the app, then set the new SLACK_BOT_TOKEN',
  account_inactive: 'the Slack app was uninstalled or its user deactivated; reinstall the app and set the new SLACK_BOT_TOKEN',
  org_login_required: 'the workspace is migrating to an Enterprise Grid; wait for the migration to end, then restart prherald',
  ekm_access_denied: 'a workspace admin suspended posting (Slack EKM); ask them to restore access, then restart prherald',
  team_access_not_granted: 'the token is not granted access to this workspace; install the app there and set its SLACK_BOT_TOKEN',
  missing_scope: 'add the chat:write and reactions:write bot scopes to the Slack app and reinstall it',
  restricted_action: 'the workspace does not let the bot post there; ask a Slack admin or choose another channel',
}

/**
 * Slack's errors about the token itself (Web API common errors): every later call fails the same way, for
 * every channel, so they are not a channel's refusal to drop: the delivery stays pending for a restart with a
 * working SLACK_BOT_TOKEN.
 */
const TOKEN_SLACK_ERRORS = new Set([
  'invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive', 'org_login_required', 'ekm_access_denied', 'team_access_not_granted',
])

const TRANSIENT_PLATFORM_ERRORS = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout'])
const SUCCESS_ANYWAY = new Set(['already_reacted', 'no_reaction'])

export function classifySlackError(error: unknown): PrheraldError | undefined {
  const code = (error as { code?: unknown }).code
  if (code === ErrorCode.RateLimitedError) {
    // HTTP 429 with Retry-After (the client is told to reject these, not wait): the pacer holds the budget.
    const retryAfterSeconds = Number((error as { retryAfter?: unknown }).retryAfter)
    return new PrheraldError('slack_rate_limited', `Slack: rate limited, retry after ${retryAfterSeconds} s`, {
      cause: error, retryAfterMs: Number.isFinite(retryAfterSeconds) ? retryAfterSeconds * 1000 : undefined,
    })
  }
  if (code === ErrorCode.PlatformError) {
    const slackError = String((error as { data?: { error?: unknown } }).data?.error ?? 'unknown_error')
    if (SUCCESS_ANYWAY.has(slackError)) return undefined
    if (slackError === 'message_not_found') {
      return new PrheraldError('slack_message_not_found', 'Slack: message_not_found', { cause: error })
    }
    if (TOKEN_SLACK_ERRORS.has(slackError)) {
      return new PrheraldError('slack_auth', `Slack refuses SLACK_BOT_TOKEN: ${slackError}`, { cause: error, fix: PERMANENT_SLACK_ERRORS[slackError] })
    }
    if (TRANSIENT_PLATFORM_ERRORS.has(slackError)) {
      return new PrheraldError('slack_transient', `Slack: ${slackError}`, { cause: error })
    }
    return new PrheraldError('slack_permanent', `Slack: ${slackError}`, {
      cause: error,
      fix: PERMANENT_SLACK_ERRORS[slackError] ?? 'see https://api.slack.com/methods for this error',
    })
  }
  const message = error instanceof Error ? error.message : String(error)
  return new PrheraldError('slack_transient', `Slack unreachable: ${message}`, { cause: error })
}
