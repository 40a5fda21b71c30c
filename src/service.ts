import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toNodeHandler } from 'h3/node'
import type { RetryOptions } from '@slack/web-api'
import type { Secrets, Settings } from './config/settings.ts'
import { pullRequestKey, type PullRequestEvent } from './decode/pull-request-event.ts'
import { createLifecycle } from './effects/apply-deliveries.ts'
import { createCallLimit } from './effects/call-limit.ts'
import { configureTargets } from './effects/configure-targets.ts'
import { createFindPost } from './effects/find-post.ts'
import { createPostOnce } from './effects/post-once.ts'
import { recoverPosts } from './effects/recover-posts.ts'
import type { ChooseTargets } from './effects/message-targets.ts'
import { DEFAULT_RETRY, ShutdownInterrupt, type RetryPolicy } from './effects/retry-transient.ts'
import { createIntake } from './intake/intake.ts'
import { errorFields, type Logger } from './log/logger.ts'
import { createMailboxes } from './mailbox/mailboxes.ts'
import { createApp } from './server.ts'
import { createSlackClient, DEFAULT_SLACK_TIMEOUT_MS } from './slack/slack-client.ts'
import { startCleanupJob } from './store/cleanup-job.ts'
import { migrateUp } from './store/migrations.ts'
import { openDatabase } from './store/open-database.ts'
import { createSqliteStore } from './store/sqlite-store.ts'

/** Outbound calls (Slack, git host) in flight at once across all pull requests. */
const PARALLEL_CALLS = 8

export interface ServiceOptions {
  settings: Settings
  secrets: Secrets
  logger: Logger
  /** Retries inside one Slack call; tests shorten them. */
  slackRetry?: RetryOptions
  slackTimeoutMs?: number
  /** Retries across calls, in the mailbox. */
  retry?: RetryPolicy
  chooseTargets?: ChooseTargets
}

export interface RunningService {
  server: Server
  port: number
  url: string
  /** Resolves true once every mailbox is empty (all accepted deliveries applied), false after `timeoutMs`. */
  settle(timeoutMs: number): Promise<boolean>
  /** Graceful stop: close the listener, finish requests and mailboxes within the window, close the database. */
  stop(): Promise<{ drained: boolean }>
}

/**
 * Starts prherald: database and migrations, replay of deliveries left pending, cleanup, then the
 * listener, in that order, so that a 200 on /healthz means everything before it succeeded.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { settings, secrets, logger } = options
  const db = openDatabase(settings.databasePath)
  const applied = migrateUp(db)
  if (applied.length > 0) logger.info('migrations applied', { versions: applied.map((m) => `${m.version}_${m.name}`) })
  const store = createSqliteStore(db)
  const shutdown = new AbortController()

  const slack = createSlackClient({
    token: secrets.slackBotToken, apiUrl: settings.api.slack, logger, retry: options.slackRetry, timeoutMs: options.slackTimeoutMs,
  })
  const retry = options.retry ?? DEFAULT_RETRY
  const limit = createCallLimit(PARALLEL_CALLS, shutdown.signal)
  const findPost = createFindPost({ slack, logger })
  const postOnce = createPostOnce({
    store, slack, logger, retry, signal: shutdown.signal, findPost, settleMs: options.slackTimeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS,
  })
  const applyDeliveries = createLifecycle({
    store, slack, logger, mappings: settings.mappings, reactions: settings.reactions, retry, signal: shutdown.signal,
    chooseTargets: options.chooseTargets ?? configureTargets(settings, secrets, logger), limit, postOnce,
  })
  const mailboxes = createMailboxes<PullRequestEvent>((_key, events) => applyDeliveries(events), (key, error) => {
    if (error instanceof ShutdownInterrupt) return logger.debug('delivery left pending for the next start', { pr_key: key })
    logger.error('delivery failed; it stays pending and is retried at the next start', { pr_key: key, ...errorFields(error) })
  })
  const handOff = (event: PullRequestEvent) => mailboxes.post(pullRequestKey(event), event)

  // Posts the last run left with an unknown outcome are settled first, so that the replay updates them.
  await recoverPosts({ store, findPost, limit, logger })
  const pending = await store.pendingDeliveries()
  for (const delivery of pending) handOff(JSON.parse(delivery.event) as PullRequestEvent)
  if (pending.length > 0) logger.info('replaying pending deliveries', { count: pending.length })

  const cleanup = await startCleanupJob({ store, logger, ttlDays: settings.messageTtlDays })
  const accept = createIntake({ provider: settings.gitProvider, mappings: settings.mappings, store, logger, handOff })
  const app = createApp({ provider: settings.gitProvider, webhookSecrets: [secrets.webhookSecret], accept, logger })
  const server = createServer(toNodeHandler(app))

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(settings.listen.port, settings.listen.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  logger.info('listening', { address: `${host}:${address.port}`, provider: settings.gitProvider, port: address.port })

  let stopping: Promise<{ drained: boolean }> | undefined
  const stop = () => (stopping ??= (async () => {
    const deadline = Date.now() + settings.shutdownTimeoutSeconds * 1000
    logger.info('shutting down', { window_seconds: settings.shutdownTimeoutSeconds })
    cleanup.stop()
    await closeServer(server, deadline)
    const drained = await mailboxes.drain(Math.max(0, deadline - Date.now()))
    if (!drained) {
      // Whatever did not finish stays in the intake table and is replayed at the next start.
      shutdown.abort()
      mailboxes.clear()
      await mailboxes.drain(1000)
    }
    await store.close()
    logger.info('stopped', { drained, pending_left: drained ? 0 : undefined })
    return { drained }
  })())

  return { server, port: address.port, settle: (timeoutMs) => mailboxes.drain(timeoutMs), url: `http://${address.family === 'IPv6' ? '[::1]' : '127.0.0.1'}:${address.port}`, stop }
}

/** Stops accepting, lets in-flight requests finish, and cuts what is still open at the deadline. */
async function closeServer(server: Server, deadline: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  const idleSweeper = setInterval(() => server.closeIdleConnections(), 50)
  const timer = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()))
  server.closeIdleConnections()
  await closed
  clearInterval(idleSweeper)
  clearTimeout(timer)
}
