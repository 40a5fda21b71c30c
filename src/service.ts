import { getEventListeners } from 'node:events'
import type { RequestListener, Server } from 'node:http'
import { toNodeHandler } from 'h3/node'
import type { RetryOptions } from '@slack/web-api'
import type { Secrets, Settings } from './config/settings.ts'
import type { ControlHandler } from './control/control-response.ts'
import { startControlServer } from './control/control-server.ts'
import { controlSocketPath } from './control/control-socket-path.ts'
import { startDigest } from './digest/start-digest.ts'
import { pullRequestKey } from '../machines/pull-request-event.ts'
import type { LifecycleEvent } from '../machines/lifecycle-event.ts'
import type { PacerClock } from './slack/pacer-clock.ts'
import { DEFAULT_RETRY, type RetryPolicy } from './slack/retry-transient.ts'
import type { SlackPacer } from './slack/slack-pacer.ts'
import { bindListeners } from './http/bind-listeners.ts'
import { HTTP_TIMEOUTS, type HttpTimeouts } from './http/http-timeouts.ts'
import { BODY_BUDGET, createBodyBudget, type BodyBudget } from './http/body-budget.ts'
import { limitConnections } from './http/connection-limit.ts'
import { createSlackBodyLane, type SlackBodyLane } from './http/slack-body-lane.ts'
import { createClickIntake } from './intake/accept-click.ts'
import { createTokenWorkspace } from './slack/token-workspace.ts'
import { createIntake } from './intake/intake.ts'
import { errorFields, type Logger } from './log/logger.ts'
import { createLeaseKeeper, replicaId } from './mailbox/lease-keeper.ts'
import { BATCHES_AT_ONCE, createMailboxes, FOLD_MS } from './mailbox/mailboxes.ts'
import { ACKS_QUIET_MS, createAcksInFlight } from './mailbox/acks-in-flight.ts'
import { handOffStored } from './mailbox/hand-off-stored.ts'
import { createBatchRetry } from './mailbox/batch-retry.ts'
import { replayParkedControlHandler } from './mailbox/replay-parked-control.ts'
import { mappedId } from './config/people-map.ts'
import { reconcileControlHandler } from './reconcile/reconcile-control.ts'
import { startReconcileOnStart } from './reconcile/reconcile-on-start.ts'
import { PARALLEL_CALLS } from './worker/create-outbound.ts'
import { createWorker } from './worker/create-worker.ts'
import { createMetrics } from './metrics/create-metrics.ts'
import { metricsRoute } from './metrics/metrics-route.ts'
import type { HostSet } from './config/connect-hosts.ts'
import { hostMappings } from './routing/resolve-route.ts'
import { createApp, webhookPath, type AppDeps } from './server.ts'
import { createSlackInbound } from './inbound/slack-inbound.ts'
import { startSocketMode } from './inbound/start-socket-mode.ts'
import type { SlackSocket, SlackSocketDeps } from './inbound/slack-socket.ts'
import { createSlackTokenState } from './slack/slack-token-state.ts'
import { startCleanupJob } from './store/cleanup-job.ts'
import { openStore } from './store/open-store.ts'
import { startDirectMessages, type DirectMessageRunner } from './personal/start-direct-messages.ts'
import { personalRoutes } from './personal/personal-routes.ts'
import { createReviewFromSlack } from './personal/review-from-slack.ts'
import { createThreadReplyEvent } from './inbound/thread-reply-event.ts'
import { createPersonLimits } from './talk-back/person-limits.ts'
import { createTalkBack, talkBackWanted } from './talk-back/create-talk-back.ts'
import { startRelinkSweep } from './talk-back/relink-sweep.ts'
import { PREVIOUS_TOKEN_KEY, readTokenCipher, TOKEN_KEY } from './talk-back/token-cipher.ts'

export interface ServiceOptions {
  settings: Settings
  secrets: Secrets
  /** Every host and its API client, built once by the composition root (connectHosts); each part gets the hosts it needs from here. */
  hosts: HostSet
  logger: Logger
  /** Retries inside one Slack call; tests shorten them. */
  slackRetry?: RetryOptions
  slackTimeoutMs?: number
  /** Retries across calls, in the mailbox. */
  retry?: RetryPolicy
  /** The Slack pacer's clock; the bench runs it faster, with a fake Slack on the same scale. */
  pacerClock?: PacerClock
  /** node:http timeouts against slow clients; tests shorten them. */
  httpTimeouts?: Partial<HttpTimeouts>
  /** The unauthenticated body budget (body-budget.ts); the default one when absent. Tests pass one they can fill. */
  bodyBudget?: BodyBudget
  /** The lane bounding Slack's unsigned bodies (slack-body-lane.ts); a default one when absent. */
  slackBodyLane?: SlackBodyLane
  /** Connections the webhook listener keeps open at once (connection-limit.ts); tests lower it. */
  maxConnections?: number
  /** How long a write waits for another program's lock on the database before the delivery gets a 503. */
  databaseLockWaitMs?: number
  /** How often the database path is compared with the opened file. */
  databaseCheckMs?: number
  /**
   * Starts a listener over the app's Node handler and resolves once it listens. Default: node:http on
   * settings.listen. `npm run dev` passes listhen's (docs/decisions.md says why production does not).
   */
  listen?: (handler: RequestListener) => Promise<Server>
  /** The personal side's clock (quiet hours); tests move it across a night. */
  clock?: () => number
  /** How often due direct messages are looked for (a held message's morning); 30 s by default. */
  directMessageIntervalMs?: number
  /** How often idle talk-back links are looked at for the relink notice; six hours by default. */
  relinkSweepMs?: number
  /** Socket Mode's backoff and timeouts (a deaf socket is found by its pings); tests shorten them. */
  socketTimeouts?: Pick<SlackSocketDeps, 'backoffMs' | 'helloMs' | 'liveness'>
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
 * Starts prherald: binds the listeners first (an address in use stops the start before anything else is
 * done), then database and migrations, replay of deliveries left pending, cleanup, and only then hands the
 * listeners to the app: until that moment /readyz and deliveries answer 503, so that a 200 on /readyz means
 * everything before it succeeded.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { settings, secrets, hosts, logger } = options
  // A token key that is set must be a good one, whether or not talk-back is on: a config error names it, never its value.
  const tokenCipher = readTokenCipher({ [TOKEN_KEY]: secrets.tokenKeys?.current, [PREVIOUS_TOKEN_KEY]: secrets.tokenKeys?.previous })
  const listeners = await bindListeners({ settings, listen: options.listen, httpTimeouts: options.httpTimeouts })
  logger.info('accepting connections; deliveries get 503 until the start-up steps are done', { address: listeners.address, port: listeners.port })
  limitConnections({ server: listeners.server, logger, max: options.maxConnections })
  const database = await openStore({
    settings, logger, lockWaitMs: options.databaseLockWaitMs, checkMs: options.databaseCheckMs, lockConnections: PARALLEL_CALLS,
  }).catch(async (error: unknown) => {
    await listeners.close(Date.now())
    throw error
  })
  const { store } = database
  const clock = options.clock ?? Date.now
  const slackToken = createSlackTokenState(logger)
  const shutdown = new AbortController()
  const providers = [...hosts.keys()]
  // Its gauges read the mailboxes and the lane (built below) only when scraped, which starts once the listener is open.
  const metrics = createMetrics({
    providers, pendingDeliveries: () => store.pendingDeliveryStats(),
    mailboxes: () => ({ queued: mailboxes.queued(), active: mailboxes.active() }),
    slackBodiesCut: () => slackLane.cut,
    ...(settings.socketMode ? { slackSocket: () => ({ open: socket?.state() === 'open', reconnects: socket?.reconnects() ?? 0 }) } : {}),
  })
  const slackLane = options.slackBodyLane ?? createSlackBodyLane()

  const owner = replicaId()
  // Talk-back only when slack.talk_back turns something on (docs/talk-back.md); otherwise nothing of it runs.
  // Built before the worker: its batches turn thread replies into comments, its messages offer the review actions.
  const talkBack = talkBackWanted(settings) ? createTalkBack({
    settings, hosts, cipher: tokenCipher, store, owner, now: clock, logger, kickDirectMessages: () => directMessages?.kick(),
  }) : undefined
  const worker = createWorker({
    settings, secrets, hosts, store, logger, signal: shutdown.signal, slackRetry: options.slackRetry, slackTimeoutMs: options.slackTimeoutMs,
    retry: options.retry, pacerClock: options.pacerClock,
    tokenObserver: slackToken, onCall: metrics.slackCall, shared: database.pacingBudget,
    now: options.clock, onDirectMessagesQueued: () => directMessages?.kick(), talkBack,
  })
  let directMessages: DirectMessageRunner | undefined
  const { slack, pacer, sleep, limit } = worker
  const retries = createBatchRetry({
    store, logger, attempts: settings.retryAttempts, backoffMs: settings.retryBackoffSeconds * 1000,
    retry: (events) => { for (const event of events) mailboxes.post(pullRequestKey(event), event) },
  })
  const batches = worker.batches({ retries, release: (events) => leases.done(events) })
  // Acks first: while requests are being answered, no more batches run than Slack has call slots.
  const acks = createAcksInFlight({ quietMs: ACKS_QUIET_MS })
  // Batches hold a lock connection each on PostgreSQL: no more are admitted than there are connections.
  const mailboxes = createMailboxes<LifecycleEvent>((key, events) => batches.run(key, events),
    (key, error) => logger.error('delivery failed; it stays pending', { pr_key: key, ...errorFields(error) }),
    { foldMs: FOLD_MS, parallel: store.soleServer ? BATCHES_AT_ONCE : PARALLEL_CALLS, acks, parallelWhileAcking: PARALLEL_CALLS })
  const handOff = (event: LifecycleEvent) => {
    leases.hold(event)
    mailboxes.post(pullRequestKey(event), event)
  }
  // What an intake has just committed: the batch holding it need not read it back (run-batch.ts).
  const handOffFresh = (event: LifecycleEvent) => {
    batches.fresh(event)
    handOff(event)
  }
  const leases = createLeaseKeeper({ store, logger, owner, leaseMs: settings.databaseLeaseSeconds * 1000, handOff })
  // A start that fails from here on must not keep the port bound or the file claimed.
  const abandon = async (error: unknown): Promise<never> => {
    shutdown.abort()
    retries.stop()
    await leases.stop()
    await listeners.close(Date.now())
    await database.close()
    throw error
  }

  // Writes the last run left with an unknown outcome are settled first, so that the replay updates them.
  await worker.recoverIntents().catch(abandon)
  const pending = await store.pendingDeliveries().catch(abandon)
  for (const delivery of pending) {
    batches.unsure(delivery.prKey)
    handOffStored(delivery, handOff, logger)
  }
  if (pending.length > 0) logger.info('replaying pending deliveries', { count: pending.length })
  await retries.refreshParked()
  const cleanup = await startCleanupJob({ store, logger, ttlDays: settings.messageTtlDays, turnaroundKeepDays: settings.insights.keepDays }).catch(abandon)
  const webhooks = [...hosts.values()].map((own) => ({
    host: own.host,
    secrets: [own.webhookSecret],
    accept: createIntake({
      host: own.host, mappings: own.mappings, reviews: settings.reviews, store, logger, handOff: handOffFresh, busy: mailboxes.has,
      // users: keys GitHub people by login, Bitbucket people by account id (docs/configuration.md#people).
      slackUserOf: (actor) => mappedId(own.users, own.host.people.keyOf(actor)),
    }),
  }))
  // Slack's requests (the button, /prherald, the home tab) arrive over HTTP with a signing secret, or over
  // Socket Mode's WebSocket: either turns them on, and both feed the one inbound pipeline.
  const interactive = secrets.slackSigningSecret !== undefined || settings.socketMode
  // Built once: the HTTP routes (with a signing secret) and the socket hand their requests to this one pipeline.
  const personal = interactive ? personalRoutes({ settings, hosts, personal: worker.personal, slack, store, pacer, sleep, retry: options.retry ?? DEFAULT_RETRY, logger, talkBack }) : undefined
  // One count per person for both kinds, kept in the store (replicas share it).
  const limits = createPersonLimits({ store, now: clock })
  const receive = !personal ? undefined : createSlackInbound({
    ...personal,
    click: createClickIntake({ providers, store, logger, handOff: handOffFresh }),
    workspace: createTokenWorkspace({ token: secrets.slackBotToken, apiUrl: settings.api.slack, logger }),
    ready: () => database.state() === 'ok', logger,
    reviews: talkBack && createReviewFromSlack({ talkBack, store, slack, logger, limits, now: Date.now }),
    threadReply: talkBack && createThreadReplyEvent({
      store, talkBack, limits, handOff: handOffFresh, logger, now: clock,
      note: (channel, user, text, threadTs) => pacer.call('chat.postEphemeral', channel, () => slack.postEphemeral(channel, user, text, threadTs)),
    }),
  })
  let socket: SlackSocket | undefined
  // A delivery waits for the budget no longer than Node gives a request (requestTimeout); full for longer is a wedge.
  const mayWaitMs = options.httpTimeouts?.requestMs ?? HTTP_TIMEOUTS.requestMs
  const budget = options.bodyBudget ?? createBodyBudget({ ...BODY_BUDGET, maxWaitMs: mayWaitMs })
  const appDeps: AppDeps = {
    webhooks, logger, budget,
    slackLane,
    health: {
      database: database.state, slack: slackToken.current, parked: retries.parked,
      bodies: () => (budget.fullFor() > mayWaitMs ? 'full' : 'ok'),
      ...(settings.socketMode ? { socket: () => socket?.state() ?? 'connecting' } : {}),
    },
    observe: metrics.delivery, metrics: settings.metricsListen ? undefined : metricsRoute(metrics),
    slack: receive && secrets.slackSigningSecret !== undefined ? { signingSecret: secrets.slackSigningSecret, receive } : undefined,
    talkBack: talkBack && { service: talkBack, linked: personal?.publishHome },
  }
  const app = createApp(appDeps)
  const handler = acks.counted(toNodeHandler(app))
  const digest = startDigest({ store, slack, pacer, logger, mappings: hostMappings(settings.hosts), digest: settings.digest, onRun: metrics.digestRun })
  // Commands that change messages hand their work to this server instead of racing it (docs/control-channel.md).
  const controlHandlers = new Map<string, ControlHandler>([
    ['reconcile', reconcileControlHandler({ settings, hosts, store, logger, handOff, limit })],
    ['digest', digest.handler],
    ['replay-parked', replayParkedControlHandler({ store, logger, handOff, refresh: retries.refreshParked })],
  ])
  const controlPath = controlSocketPath(settings)
  // A start that fails once the jobs run (the control socket cannot be opened) stops them before giving the database up.
  const abandonStarted = async (error: unknown): Promise<never> => {
    cleanup.stop()
    digest.stop()
    return abandon(error)
  }
  const control = controlPath ? await startControlServer({ path: controlPath, handlers: controlHandlers, logger }).catch(abandonStarted) : undefined

  // Ready: from here on the listeners serve the app. `listening` keeps meaning "deliveries are taken".
  listeners.open(handler, metrics)
  // Socket Mode connects once the gate is open: an envelope is acted on, and acknowledged, only from here on.
  socket = await startSocketMode({ settings, secrets, receive, logger, timeouts: options.socketTimeouts })
  directMessages = startDirectMessages({ sendDue: worker.personal.sendDue, logger, intervalMs: options.directMessageIntervalMs ?? 30_000 })
  const relinkSweep = talkBack && startRelinkSweep({ store, notices: talkBack.notices, now: clock, logger, intervalMs: options.relinkSweepMs })
  const { server, port, url } = listeners
  logger.info('listening', { address: listeners.address, hosts: providers, routes: webhooks.map((w) => webhookPath(w.host)), port })
  if (listeners.metrics) logger.info('serving /metrics on its own listener', { address: listeners.metrics.address, port: listeners.metrics.port })
  const reconcileOnStart = startReconcileOnStart({ settings, hosts, store, logger, handOff, limit })

  let stopping: Promise<{ drained: boolean }> | undefined
  const stop = () => (stopping ??= (async () => {
    const deadline = Date.now() + settings.shutdownTimeoutSeconds * 1000
    logger.info('shutting down', { window_seconds: settings.shutdownTimeoutSeconds })
    // First: Slack stops sending over the socket before anything it asks for could no longer be acted on.
    await socket?.stop()
    cleanup.stop()
    await relinkSweep?.stop()
    reconcileOnStart.stop()
    digest.stop()
    // No more taking over: what this server leaves pending, another replica (or the next start) finishes.
    retries.stop()
    await leases.stop()
    await Promise.all([listeners.close(deadline), control?.stop(deadline)])
    const drained = await mailboxes.drain(Math.max(0, deadline - Date.now()))
    // A round still waiting on Slack is cut off at the deadline: its claim lapses and the next start sends it.
    const roundStopped = directMessages?.stop().then(() => true) ?? Promise.resolve(true)
    const roundDone = await Promise.race([roundStopped, new Promise<boolean>((r) => setTimeout(() => r(false), Math.max(0, deadline - Date.now())).unref())])
    // Cut off means aborted: a round left waiting on the pacer would call Slack after the stop, on a closed database.
    if (!drained || !roundDone) shutdown.abort()
    if (!drained) {
      // Whatever did not finish stays in the intake table and is replayed at the next start.
      mailboxes.clear()
      await mailboxes.drain(1000)
    }
    if (!roundDone) await Promise.race([roundStopped, new Promise((r) => setTimeout(r, 1000).unref())])
    await database.close()
    logger.info('stopped', { drained, pending_left: drained ? 0 : undefined })
    return { drained }
  })())

  const holding = () => ({
    mailboxes: mailboxes.active(), pacer: pacer.stats(), sleeps: sleep.pending(),
    shutdownListeners: getEventListeners(shutdown.signal, 'abort').length,
  })
  return {
    server, port, settle: (timeoutMs) => mailboxes.drain(timeoutMs), holding, url, stop,
    metricsUrl: `${listeners.metrics ? listeners.metrics.url : url}/metrics`,
  }
}
