import type { RetryOptions } from '@slack/web-api'
import type { Secrets, Settings } from '../config/settings.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { PacerClock } from '../slack/pacer-clock.ts'
import type { SharedPacingBudget } from '../store/shared-pacing-budget.ts'
import { createShutdownSleep, type ShutdownSleep } from '../slack/shutdown-sleep.ts'
import { createSlackClient, type SlackClient, type SlackClientOptions } from '../slack/slack-client.ts'
import { createSlackPacer, type SlackPacer, type SlackPacerOptions } from '../slack/slack-pacer.ts'
import { createCallLimit, type CallLimit } from './call-limit.ts'

/** Outbound calls in flight at once across all pull requests: Slack calls (in the pacer), and git-host calls. */
export const PARALLEL_CALLS = 8

export interface OutboundOptions {
  settings: Pick<Settings, 'api' | 'slackPacing'>
  secrets: Pick<Secrets, 'slackBotToken'>
  logger: Logger
  /** Aborted at shutdown: backoff sleeps end, waiting calls fail with ShutdownInterrupt, nothing new starts. */
  signal: AbortSignal
  /** Retries inside one Slack call; tests shorten them. */
  slackRetry?: RetryOptions
  slackTimeoutMs?: number
  /** Told when Slack refuses the token and when it works again (the server's /healthz). */
  tokenObserver?: SlackClientOptions['tokenObserver']
  /** The pacer's clock; the bench runs it faster, with a fake Slack on the same scale. */
  pacerClock?: PacerClock
  /** The Slack budget the replicas share (PostgreSQL). */
  shared?: SharedPacingBudget
  /** Told how every Slack call ended (the server's metrics). */
  onCall?: SlackPacerOptions['onCall']
}

/** What every program that writes to Slack calls through: the client, the pacer, backoff sleeps and the git-host slots. */
export interface Outbound {
  slack: SlackClient
  pacer: SlackPacer
  sleep: ShutdownSleep
  limit: CallLimit
}

/** The one place the Slack client and its pacer are built, for the server and every command that posts. */
export function createOutbound(options: OutboundOptions): Outbound {
  const { settings, logger, signal } = options
  const slack = createSlackClient({
    token: options.secrets.slackBotToken, apiUrl: settings.api.slack, logger, retry: options.slackRetry, timeoutMs: options.slackTimeoutMs,
    tokenObserver: options.tokenObserver,
  })
  const pacer = createSlackPacer({
    pacing: settings.slackPacing, parallel: PARALLEL_CALLS, signal, clock: options.pacerClock,
    onHold: (method, channel, holdMs) => logger.warn('slack rate limit reached; holding these calls', { call: method, channel, hold_ms: holdMs }),
    onCall: options.onCall,
    shared: options.shared,
    onSharedError: (error) => logger.warn('the shared Slack budget could not be asked; this call went ahead on this replica\'s own budget', {
      ...errorFields(error), fix: 'check the connection to PostgreSQL; until it is back each replica paces alone',
    }),
  })
  return { slack, pacer, sleep: createShutdownSleep(signal), limit: createCallLimit(PARALLEL_CALLS, signal) }
}
