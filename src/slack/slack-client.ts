import { ErrorCode, LogLevel, WebClient, type Logger as SlackLogger, type RetryOptions } from '@slack/web-api'
import { PrheraldError } from '../errors.ts'
import type { Logger } from '../log/logger.ts'
import { findMarkedMessage, type HistoryLookup, type PostMarker } from './find-marked-message.ts'
import { mayHavePosted } from './post-outcome.ts'

export interface SlackMessage {
  text: string
  blocks: unknown[]
}

/**
 * The calls the lifecycle makes. Errors are PrheraldErrors: slack_transient, slack_permanent,
 * slack_message_not_found, and for postMessage slack_outcome_unknown (the post may be in the channel).
 */
export interface SlackClient {
  /** Posts once, never retried inside the client; `marker` goes into the message's metadata. */
  postMessage(channel: string, message: SlackMessage, marker?: PostMarker): Promise<string>
  /** Looks through the channel's recent history for the post carrying `marker` (see find-marked-message.ts). */
  findMarkedMessage(channel: string, marker: PostMarker, oldest: Date): Promise<HistoryLookup>
  updateMessage(channel: string, ts: string, message: SlackMessage): Promise<void>
  addReaction(channel: string, ts: string, name: string): Promise<void>
  removeReaction(channel: string, ts: string, name: string): Promise<void>
}

export interface SlackClientOptions {
  token: string
  apiUrl: string
  logger: Logger
  /** Retries inside one call (429 Retry-After, 5xx, network). Further retries happen in the mailbox. */
  retry?: RetryOptions
  timeoutMs?: number
}

/** What to tell the operator for Slack errors that retrying cannot fix. */
export const PERMANENT_SLACK_ERRORS: Record<string, string> = {
  channel_not_found: 'check the channel ID in config.yaml; for a private channel, invite the bot first',
  not_in_channel: 'invite the bot to the channel (/invite @your-bot in Slack)',
  is_archived: 'unarchive the channel or map the repository to another channel',
  invalid_auth: 'SLACK_BOT_TOKEN is not valid; copy the Bot User OAuth Token (xoxb-…) from the Slack app',
  not_authed: 'SLACK_BOT_TOKEN is empty; set it to the Bot User OAuth Token (xoxb-…)',
  token_revoked: 'the Slack token was revoked; reinstall the app and set the new SLACK_BOT_TOKEN',
  account_inactive: 'the Slack app was uninstalled or its user deactivated; reinstall the app',
  missing_scope: 'add the chat:write and reactions:write bot scopes to the Slack app and reinstall it',
  restricted_action: 'the workspace does not let the bot post there; ask a Slack admin or choose another channel',
}

const TRANSIENT_PLATFORM_ERRORS = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout'])
const SUCCESS_ANYWAY = new Set(['already_reacted', 'no_reaction'])

export function classifySlackError(error: unknown): PrheraldError | undefined {
  const code = (error as { code?: unknown }).code
  if (code === ErrorCode.PlatformError) {
    const slackError = String((error as { data?: { error?: unknown } }).data?.error ?? 'unknown_error')
    if (SUCCESS_ANYWAY.has(slackError)) return undefined
    if (slackError === 'message_not_found') {
      return new PrheraldError('slack_message_not_found', 'Slack: message_not_found', { cause: error })
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

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Routes the Web API client's own log lines into ours, dropping its debug lines (they carry request bodies). */
function slackLogger(logger: Logger): SlackLogger {
  const text = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : String(m))).join(' ')
  return {
    debug: () => {},
    info: (...msg) => logger.debug('slack client', { detail: text(msg) }),
    warn: (...msg) => logger.warn('slack client', { detail: text(msg) }),
    error: (...msg) => logger.error('slack client', { detail: text(msg) }),
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: () => {},
  }
}

export const DEFAULT_SLACK_TIMEOUT_MS = 10_000

export const DEFAULT_SLACK_RETRY: RetryOptions = { retries: 3, factor: 2, minTimeout: 1000, maxTimeout: 10_000, randomize: true }

export function createSlackClient(options: SlackClientOptions): SlackClient {
  const settings = {
    slackApiUrl: options.apiUrl,
    logger: slackLogger(options.logger),
    timeout: options.timeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS,
    rejectRateLimitedCalls: false,
  }
  const client = new WebClient(options.token, { ...settings, retryConfig: options.retry ?? DEFAULT_SLACK_RETRY })
  // Posts get a client of their own that never retries: Slack has no idempotency key, so a post retried
  // after a timeout or a reset can land twice. A failed post goes back to post-once.ts, which looks for it
  // in the channel before posting again. (A 429 is still waited out here, then reported as not posted.)
  const poster = new WebClient(options.token, { ...settings, retryConfig: { retries: 0 } })
  const call = async <T>(run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run()
    } catch (error) {
      const classified = classifySlackError(error)
      if (classified) throw classified
      return undefined
    }
  }
  return {
    async postMessage(channel, message, marker) {
      const metadata = marker ? { metadata: { event_type: marker.eventType, event_payload: { ...marker.payload } } } : {}
      let result
      try {
        result = await poster.chat.postMessage({ channel, text: message.text, blocks: message.blocks as never, unfurl_links: false, ...metadata })
      } catch (error) {
        if (mayHavePosted(error)) {
          throw new PrheraldError('slack_outcome_unknown', `Slack: chat.postMessage outcome unknown (${errorText(error)})`, { cause: error })
        }
        const classified = classifySlackError(error)
        if (classified) throw classified
      }
      if (!result?.ts) throw new PrheraldError('slack_outcome_unknown', 'Slack: chat.postMessage returned no ts')
      return result.ts
    },
    findMarkedMessage: (channel, marker, oldest) => findMarkedMessage({ client, call }, channel, marker, oldest),
    async updateMessage(channel, ts, message) {
      await call(() => client.chat.update({ channel, ts, text: message.text, blocks: message.blocks as never }))
    },
    async addReaction(channel, ts, name) {
      await call(() => client.reactions.add({ channel, timestamp: ts, name }))
    },
    async removeReaction(channel, ts, name) {
      await call(() => client.reactions.remove({ channel, timestamp: ts, name }))
    },
  }
}
