import { getEventListeners } from 'node:events'
import type { RequestListener, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toNodeHandler } from 'h3/node'
import type { RetryOptions } from '@slack/web-api'
import type { Secrets, Settings } from './config/settings.ts'
import type { ControlHandler } from './control/control-response.ts'
import { startControlServer } from './control/control-server.ts'
import { controlSocketPath } from './control/control-socket-path.ts'
import { startDigest } from './digest/start-digest.ts'
import { pullRequestKey } from '../machines/pull-request-event.ts'
import type { LifecycleEvent } from '../machines/lifecycle-event.ts'
import type { ChooseTargets } from './routing/message-targets.ts'
import type { PacerClock } from './slack/pacer-clock.ts'
import { ShutdownInterrupt, type RetryPolicy } from './slack/retry-transient.ts'
import type { SlackPacer } from './slack/slack-pacer.ts'
import { createTimedServer, HTTP_TIMEOUTS, type HttpTimeouts } from './http/http-timeouts.ts'
import { createClickIntake } from './intake/accept-click.ts'
import { createIntake } from './intake/intake.ts'
import { isPrheraldError } from './errors.ts'
import { errorFields, type Logger } from './log/logger.ts'
import { createLeaseKeeper, replicaId } from './mailbox/lease-keeper.ts'
import { createMailboxes } from './mailbox/mailboxes.ts'
import { mappedId } from './config/people-map.ts'
import { reconcileControlHandler } from './reconcile/reconcile-control.ts'
import { startReconcileOnStart } from './reconcile/reconcile-on-start.ts'
import { PARALLEL_CALLS } from './worker/create-outbound.ts'
import { createWorker } from './worker/create-worker.ts'
import { createMetrics } from './metrics/create-metrics.ts'
import { metricsRoute } from './metrics/metrics-route.ts'
import { startMetricsServer } from './metrics/metrics-server.ts'
import { hostOf } from './hosts/registry.ts'
import { createApp } from './server.ts'
import { createSlackTokenState } from './slack/slack-token-state.ts'
import { startCleanupJob } from './store/cleanup-job.ts'
import { openStore } from './store/open-store.ts'

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
  /** The Slack pacer's clock; the bench runs it faster, with a fake Slack on the same scale. */
  pacerClock?: PacerClock
  /** node:http timeouts against slow clients; tests shorten them. */
  httpTimeouts?: Partial<HttpTimeouts>
  /** How long a write waits for another program's lock on the database before the delivery gets a 503. */
  databaseLockWaitMs?: number
  /** How often the database path is compared with the opened file. */
  databaseCheckMs?: number
  /**
   * Starts a listener over the app's Node handler and resolves once it listens. Default: node:http on
   * settings.listen. `npm run dev` passes listhen's (docs/decisions.md says why production does not).
   */
  listen?: (handler: RequestListener) => Promise<Server>
}

export interface RunningService {
  server: Server
  port: number
  url: string
  /** Where `GET /metrics` answers: on `url`, or on `server.metrics_listen`'s own listener. */
  metricsUrl: string
  /** Resolves true once every mailbox is empty (all accepted deliveries applied), false after `timeoutMs`. */
  settle(timeoutMs: number): Promise<boolean>
  /** What the service still holds: for tests that check nothing is left once it is idle. */
  holding(): { mailboxes: number; pacer: ReturnType<SlackPacer['stats']>; sleeps: number; shutdownListeners: number }
  /** Graceful stop: close the listener, finish requests and mailboxes within the window, close the database. */
  stop(): Promise<{ drained: boolean }>
}

/**
 * Starts prherald: database and migrations, replay of deliveries left pending, cleanup, then the
 * listener, in that order, so that a 200 on /healthz means everything before it succeeded.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { settings, secrets, logger } = options
  const database = await openStore({
    settings, logger, lockWaitMs: options.databaseLockWaitMs, checkMs: options.databaseCheckMs, lockConnections: PARALLEL_CALLS,
  })
  const { store } = database
  const slackToken = createSlackTokenState(logger)
  const shutdown = new AbortController()
  // Its gauges read the mailboxes (built below) only when scraped, which starts once the listener is open.
  const metrics = createMetrics({
    provider: settings.gitProvider, pendingDeliveries: () => store.pendingDeliveryStats(),
    mailboxes: () => ({ queued: mailboxes.queued(), active: mailboxes.active() }),
  })

  const worker = createWorker({
    settings, secrets, store, logger, signal: shutdown.signal, slackRetry: options.slackRetry, slackTimeoutMs: options.slackTimeoutMs,
    retry: options.retry, chooseTargets: options.chooseTargets, pacerClock: options.pacerClock,
    tokenObserver: slackToken, onCall: metrics.slackCall, shared: database.pacingBudget,
  })
  const { slack, pacer, sleep, limit, applyPending } = worker
  const mailboxes = createMailboxes<LifecycleEvent>((key, events) => applyPending(key).finally(() => leases.done(events)), (key, error) => {
    if (error instanceof ShutdownInterrupt) return logger.debug('delivery left pending for the next start', { pr_key: key })
    logger.error('delivery failed; it stays pending and is retried at the next start', {
      pr_key: key, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined,
    })
  })
  const handOff = (event: LifecycleEvent) => {
    leases.hold(event)
    mailboxes.post(pullRequestKey(event), event)
  }
  const leases = createLeaseKeeper({ store, logger, owner: replicaId(), leaseMs: settings.databaseLeaseSeconds * 1000, handOff })

  // Posts the last run left with an unknown outcome are settled first, so that the replay updates them.
  await worker.recoverPosts()
  const pending = await store.pendingDeliveries()
  for (const delivery of pending) handOff(JSON.parse(delivery.event) as LifecycleEvent)
  if (pending.length > 0) logger.info('replaying pending deliveries', { count: pending.length })

  // A start that fails from here on (a port in use, most likely) must not keep the file claimed.
  const abandon = async (error: unknown): Promise<never> => {
    shutdown.abort()
    await leases.stop()
    await database.close()
    throw error
  }
  const cleanup = await startCleanupJob({ store, logger, ttlDays: settings.messageTtlDays }).catch(abandon)
  const accept = createIntake({
    provider: settings.gitProvider, mappings: settings.mappings, reviews: settings.reviews, store, logger, handOff,
    // users: keys GitHub people by login, Bitbucket people by account id (docs/configuration.md#people).
    slackUserOf: (actor) => mappedId(settings.users, hostOf(settings.gitProvider).people.keyOf(actor)),
  })
  const app = createApp({
    provider: settings.gitProvider, webhookSecrets: [secrets.webhookSecret], accept, logger,
    health: { database: database.state, slack: slackToken.current },
    observe: metrics.delivery, metrics: settings.metricsListen ? undefined : metricsRoute(metrics),
    slackInteractions: secrets.slackSigningSecret === undefined ? undefined : {
      signingSecret: secrets.slackSigningSecret,
      accept: createClickIntake({ provider: settings.gitProvider, store, logger, handOff }),
    },
  })
  const handler = toNodeHandler(app)
  const digest = startDigest({ store, slack, pacer, logger, mappings: settings.mappings, digest: settings.digest, onRun: metrics.digestRun })
  // Commands that change messages hand their work to this server instead of racing it (docs/control-channel.md).
  const controlHandlers = new Map<string, ControlHandler>([
    ['reconcile', reconcileControlHandler({ settings, secrets, store, logger, handOff, limit })],
    ['digest', digest.handler],
  ])
  const controlPath = controlSocketPath(settings)
  const control = controlPath ? await startControlServer({ path: controlPath, handlers: controlHandlers, logger }) : undefined
  // A start that fails once the jobs and the control channel run stops them before giving the database up.
  const abandonStarted = async (error: unknown): Promise<never> => {
    cleanup.stop()
    digest.stop()
    await control?.stop(Date.now())
    return abandon(error)
  }
  const server = options.listen ? await options.listen(handler) : createTimedServer(handler, { ...HTTP_TIMEOUTS, ...options.httpTimeouts })

  if (!options.listen) await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(settings.listen.port, settings.listen.host, () => {
      server.off('error', reject)
      resolve()
    })
  }).catch(abandonStarted)
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const metricsServer = settings.metricsListen && await startMetricsServer({ listen: settings.metricsListen, metrics }).catch(async (error: unknown) => {
    await closeServer(server, Date.now())
    return abandonStarted(error)
  })
  logger.info('listening', { address: `${host}:${address.port}`, provider: settings.gitProvider, port: address.port })
  if (metricsServer) logger.info('serving /metrics on its own listener', { address: metricsServer.address, port: metricsServer.port })
  const url = `http://${address.family === 'IPv6' ? '[::1]' : '127.0.0.1'}:${address.port}`
  const reconcileOnStart = startReconcileOnStart({ settings, secrets, store, logger, handOff, limit })

  let stopping: Promise<{ drained: boolean }> | undefined
  const stop = () => (stopping ??= (async () => {
    const deadline = Date.now() + settings.shutdownTimeoutSeconds * 1000
    logger.info('shutting down', { window_seconds: settings.shutdownTimeoutSeconds })
    cleanup.stop()
    reconcileOnStart.stop()
    digest.stop()
    // No more taking over: what this server leaves pending, another replica (or the next start) finishes.
    await leases.stop()
    await Promise.all([closeServer(server, deadline), control?.stop(deadline)])
    await metricsServer?.close()
    const drained = await mailboxes.drain(Math.max(0, deadline - Date.now()))
    if (!drained) {
      // Whatever did not finish stays in the intake table and is replayed at the next start.
      shutdown.abort()
      mailboxes.clear()
      await mailboxes.drain(1000)
    }
    await database.close()
    logger.info('stopped', { drained, pending_left: drained ? 0 : undefined })
    return { drained }
  })())

  const holding = () => ({
    mailboxes: mailboxes.active(), pacer: pacer.stats(), sleeps: sleep.pending(),
    shutdownListeners: getEventListeners(shutdown.signal, 'abort').length,
  })
  return {
    server, port: address.port, settle: (timeoutMs) => mailboxes.drain(timeoutMs), holding, url, stop,
    metricsUrl: `${metricsServer ? metricsServer.url : url}/metrics`,
  }
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
