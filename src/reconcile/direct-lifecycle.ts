import type { Secrets, Settings } from '../config/settings.ts'
import { createLifecycle, type ApplyDeliveries } from '../worker/apply-deliveries.ts'
import { createCallLimit, type CallLimit } from '../worker/call-limit.ts'
import { createFindPost } from '../slack/find-post.ts'
import { repositoryChannel } from '../routing/message-targets.ts'
import { createReplyOnce } from '../slack/reply-once.ts'
import { createThreadReplies } from '../worker/thread-replies.ts'
import { createPostOnce } from '../slack/post-once.ts'
import { DEFAULT_RETRY } from '../slack/retry-transient.ts'
import { createShutdownSleep } from '../slack/shutdown-sleep.ts'
import { createSlackPacer } from '../slack/slack-pacer.ts'
import type { Logger } from '../log/logger.ts'
import { createSlackClient, DEFAULT_SLACK_TIMEOUT_MS } from '../slack/slack-client.ts'
import type { Store } from '../store/store.ts'

/** As the server's: calls in flight at once. */
const PARALLEL_CALLS = 8

export interface DirectLifecycle {
  applyDeliveries: ApplyDeliveries
  limit: CallLimit
  /** Ends backoff sleeps and refuses new calls (on SIGINT). */
  abort(): void
}

/**
 * The server's worker (fold, planner, executor through the pacer, post-once), built for a command that runs
 * while no server does and holds the server lock meanwhile, so nothing else applies deliveries to this
 * database. Announcements are not among what reconcile applies (every pull request it touches already has
 * its message), so the repository's channels stand in for path routing.
 */
export function createDirectLifecycle(deps: {
  settings: Pick<Settings, 'api' | 'slackPacing' | 'mappings' | 'reactions' | 'threadUpdates' | 'notifyReviewRequests'>
  secrets: Pick<Secrets, 'slackBotToken'>
  store: Store
  logger: Logger
}): DirectLifecycle {
  const { settings, store, logger } = deps
  const shutdown = new AbortController()
  const slack = createSlackClient({ token: deps.secrets.slackBotToken, apiUrl: settings.api.slack, logger })
  const sleep = createShutdownSleep(shutdown.signal)
  const pacer = createSlackPacer({
    pacing: settings.slackPacing, parallel: PARALLEL_CALLS, signal: shutdown.signal,
    onHold: (method, channel, holdMs) => logger.warn('slack rate limit reached; holding these calls', { call: method, channel, hold_ms: holdMs }),
  })
  const limit = createCallLimit(PARALLEL_CALLS, shutdown.signal)
  const findPost = createFindPost({ slack, logger })
  const postOnce = createPostOnce({ store, slack, logger, retry: DEFAULT_RETRY, sleep, findPost, settleMs: DEFAULT_SLACK_TIMEOUT_MS })
  const applyDeliveries = createLifecycle({
    store, slack, logger, mappings: settings.mappings, reactions: settings.reactions, retry: DEFAULT_RETRY, sleep, pacer,
    chooseTargets: repositoryChannel, limit, postOnce,
    // Replies the reconciled events call for are posted once, like the server's (reply-once.ts).
    threadUpdates: settings.threadUpdates, notifyReviewRequests: settings.notifyReviewRequests,
    postThreadReplies: createThreadReplies({
      replyOnce: createReplyOnce({ store, slack, logger, retry: DEFAULT_RETRY, sleep, settleMs: DEFAULT_SLACK_TIMEOUT_MS }), pacer, retry: DEFAULT_RETRY, sleep, logger,
    }),
  })
  return { applyDeliveries, limit, abort: () => shutdown.abort() }
}
