import { getEventListeners } from 'node:events'
import type { RequestListener, Server } from 'node:http'
import type { Worker } from 'node:worker_threads'
import { toNodeHandler } from 'h3/node'
import type { RetryOptions } from '@slack/web-api'
import type { Secrets, Settings } from './config/settings.ts'
import type { ControlHandler } from './control/control-response.ts'
import { startControlServer } from './control/control-server.ts'
import { controlSocketPath } from './control/control-socket-path.ts'
import { startDigest } from './digest/start-digest.ts'
import { startWeekly, WEEKLY_HOLD_LEASES, weeklyFigureDeps } from './insights/post-weekly.ts'
import { createScheduler } from './scheduler/scheduler.ts'
import { createReminders, REMINDER_SWEEP_MS } from './reminders/create-reminders.ts'
import { createServiceParts } from './service-parts.ts'
import { createDeliveries } from './mailbox/create-deliveries.ts'
import { createSocketState } from './inbound/socket-state.ts'
import type { LifecycleEvent } from '../machines/lifecycle-event.ts'
import type { PacerClock } from './slack/pacer-clock.ts'
import { DEFAULT_RETRY, type RetryPolicy } from './slack/retry-transient.ts'
import type { SlackPacer } from './slack/slack-pacer.ts'
import { bindListeners } from './http/bind-listeners.ts'
import { ackThreadData, startAckThread } from './ack-thread/start-ack-thread.ts'
import { HTTP_TIMEOUTS, type HttpTimeouts } from './http/http-timeouts.ts'
import { BODY_BUDGET, createBodyBudget, type BodyBudget } from './http/body-budget.ts'
import { limitConnections } from './http/connection-limit.ts'
import { createSlackBodyLane, type SlackBodyLane } from './http/slack-body-lane.ts'
import { createClickIntake } from './intake/accept-click.ts'
import { createTokenWorkspace } from './slack/token-workspace.ts'
import { followRoutes } from './routing/route-pull-request.ts'
import { createIntake } from './intake/intake.ts'
import type { Logger } from './log/logger.ts'
import { replicaId } from './mailbox/lease-keeper.ts'
import { BATCHES_AT_ONCE, FOLD_MS } from './mailbox/mailboxes.ts'
import { ACKS_QUIET_MS, acksOfThread, createAcksInFlight } from './mailbox/acks-in-flight.ts'
import { handOffStored } from './mailbox/hand-off-stored.ts'
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
import { createApp, type AppDeps } from './server.ts'
import { webhookPath } from './http/webhook-routes.ts'
import { createSlackInbound } from './inbound/slack-inbound.ts'
import { startSocketMode } from './inbound/start-socket-mode.ts'
import type { SlackSocketDeps } from './inbound/slack-socket.ts'
import { createSlackTokenState } from './slack/slack-token-state.ts'
import { cleanupRunKey, runCleanup } from './store/cleanup-job.ts'
import { openStore } from './store/open-store.ts'
import { personalRoutes } from './personal/personal-routes.ts'
import { createReviewFromSlack } from './personal/review-from-slack.ts'
import { createThreadReplyEvent } from './inbound/thread-reply-event.ts'
import { createPersonLimits } from './talk-back/person-limits.ts'
import { createTalkBack, talkBackWanted } from './talk-back/create-talk-back.ts'
import { createCodeThreadReply } from './personal/code-thread-reply.ts'
import { RELINK_SWEEP_MS, sweepRelinks } from './talk-back/relink-sweep.ts'
import { warnSealedLinks } from './talk-back/sealed-links.ts'
import { warnTalkBackGaps } from './checks/talk-back-gaps.ts'
import { PREVIOUS_TOKEN_KEY, readTokenCipher, TOKEN_KEY } from './talk-back/token-cipher.ts'

/** The direct-message sender's job: every 30 s by default, at start, and whenever a message is queued. */
const DIRECT_MESSAGES_JOB = 'direct-messages'
const HOUR_MS = 3_600_000

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
  /** How often the reminder job looks at the open pull requests (notify.reminders); five minutes by default. */
  reminderIntervalMs?: number
  /** How often idle talk-back links are looked at for the relink notice; six hours by default. */
  relinkSweepMs?: number
  /** Socket Mode's backoff and timeouts (a deaf socket is found by its pings); tests shorten them. */
  socketTimeouts?: Pick<SlackSocketDeps, 'backoffMs' | 'helloMs' | 'liveness'>
  /**
   * The service stopped itself: with `server.ack_thread`, the acknowledging thread ended without being asked
   * (docs/decisions.md). prherald-server exits non-zero, so that its supervisor starts it again.
   */
  onFailure?: () => void
  /** With `server.ack_thread`, tests: the acknowledging thread's worker, to end it as a crash would. */
  onAckThread?: (worker: Worker) => void
}

export interface RunningService {
  /** The webhook listener's Node server; undefined with `server.ack_thread` (it is the acknowledging thread's). */
  server: Server | undefined
  port: number
  url: string
  /** Where `GET /metrics` answers: on `url`, or on `server.metrics_listen`'s own listener. */
  metricsUrl: string
  /** Resolves true once every mailbox is empty (all accepted deliveries applied), false after `timeoutMs`. */
  settle(timeoutMs: number): Promise<boolean>
  /** What the service still holds: for tests that check nothing is left once it is idle. */
  holding(): { mailboxes: number; pacer: ReturnType<SlackPacer['stats']>; sleeps: number; retries: number; shutdownListeners: number }
  /** The service's parts, in the order they started (they stop in the reverse order). */
  parts(): string[]
  /** Graceful stop: every part stopped in the reverse of its start order, within the window (the listener first, then the mailboxes, the database last). */
  stop(): Promise<{ drained: boolean }>
}

/**
 * Starts prherald as a list of parts, each started after the parts it uses and stopped before them (the reverse
 * order, from the same list, on SIGTERM and on a start that fails). The listeners are bound first (an address
 * in use stops the start before anything else is done) but serve the app only once every part before `serve`
 * has started: until then /readyz and deliveries answer 503, so a 200 on /readyz means everything before it
 * succeeded.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { settings, secrets, hosts, logger } = options
  const clock = options.clock ?? Date.now
  const providers = [...hosts.keys()]
  const owner = replicaId()
  // Cut off at the end of the shutdown window: work still waiting on Slack gives up rather than call it after the stop.
  const shutdown = new AbortController()
  // A token key that is set must be a good one, whether or not talk-back is on: a config error names it, never its value.
  const tokenCipher = readTokenCipher({ [TOKEN_KEY]: secrets.tokenKeys?.current, [PREVIOUS_TOKEN_KEY]: secrets.tokenKeys?.previous })
  const parts = createServiceParts(logger)
  // The stop, from the list of parts: on SIGTERM, and when the acknowledging thread ended on its own.
  let drained = true
  let stopping: Promise<{ drained: boolean }> | undefined
  const stop = () => (stopping ??= (async () => {
    logger.info('shutting down', { window_seconds: settings.shutdownTimeoutSeconds })
    await parts.stop(Date.now() + settings.shutdownTimeoutSeconds * 1000)
    logger.info('stopped', { drained, pending_left: drained ? 0 : undefined })
    return { drained }
  })())

  // server.ack_thread: the webhook listener and its intake run on a thread of their own (src/ack-thread/), every
  // other request is forwarded to this thread's app; off: both on this event loop.
  const mayWaitMs = options.httpTimeouts?.requestMs ?? HTTP_TIMEOUTS.requestMs
  const threadData = settings.ackThread ? ackThreadData(settings, hosts, {
    httpTimeouts: { ...HTTP_TIMEOUTS, ...options.httpTimeouts }, maxConnections: options.maxConnections, databaseLockWaitMs: options.databaseLockWaitMs,
  }) : undefined
  const listeners = threadData
    ? await parts.start('listeners', () => startAckThread({
      data: threadData,
      logger, metricsListen: settings.metricsListen, onWorker: options.onAckThread,
      onDeath: () => void stop().then(() => options.onFailure?.()),
    }), (bound, deadline) => bound.close(deadline))
    : await parts.start('listeners', () => bindListeners({ settings, listen: options.listen, httpTimeouts: options.httpTimeouts }),
      (bound, deadline) => bound.close(deadline))
  logger.info('accepting connections; deliveries get 503 until the start-up steps are done', { address: listeners.address, port: listeners.port })
  if (listeners.server) limitConnections({ server: listeners.server, logger, max: options.maxConnections })

  const database = await parts.start('database', () => openStore({
    settings, logger, lockWaitMs: options.databaseLockWaitMs, checkMs: options.databaseCheckMs, lockConnections: PARALLEL_CALLS,
    // SQLite: the thread's connection is a second writer of this process; the two take one write turn (write-turn.ts).
    writeTurn: threadData?.writeTurn,
  }), (opened) => opened.close())
  const { store } = database
  const slackToken = createSlackTokenState(logger)
  const slackLane = options.slackBodyLane ?? createSlackBodyLane()
  // The mailboxes' and the socket's gauges are watched once those parts exist (scrapes start once the listeners serve).
  const metrics = createMetrics({ providers, pendingDeliveries: () => store.pendingDeliveryStats(), slackBodiesCut: () => slackLane.cut, socketMode: settings.socketMode })

  // The timed jobs (digest, cleanup, direct messages, reminders, relink sweep) are added below and armed at `serve`; stopped
  // after the mailboxes drained (a batch may queue a direct message), a round left waiting on Slack is cut off.
  const scheduler = await parts.start('scheduler', () => createScheduler({ store, logger }), async (jobs, deadline) => {
    if (await jobs.stop(deadline)) return
    shutdown.abort()
    if (!(await jobs.stop(Date.now() + 1000))) logger.warn('timed jobs still running a second after the shutdown window; they may call Slack after the stop')
  })
  const kickDirectMessages = () => scheduler.kick(DIRECT_MESSAGES_JOB)

  // Talk-back only when slack.talk_back turns something on (docs/talk-back.md); otherwise nothing of it runs.
  // Built before the worker: its batches turn thread replies into comments, its messages offer the review actions.
  const talkBack = talkBackWanted(settings) ? createTalkBack({
    settings, hosts, cipher: tokenCipher, store, owner, now: clock, logger, kickDirectMessages,
  }) : undefined
  // A part talk-back lacks is a warning now and a reason in /readyz, never a silent 404 (docs/operations.md).
  const missing = warnTalkBackGaps({ settings, secrets, hosts, logger })
  const sealedLinks = talkBack ? await warnSealedLinks({ store, cipher: tokenCipher, logger }) : undefined
  const worker = createWorker({
    settings, secrets, hosts, store, logger, signal: shutdown.signal, slackRetry: options.slackRetry, slackTimeoutMs: options.slackTimeoutMs,
    retry: options.retry, pacerClock: options.pacerClock,
    tokenObserver: slackToken, onCall: metrics.slackCall, shared: database.pacingBudget,
    now: options.clock, onDirectMessagesQueued: kickDirectMessages, talkBack,
  })
  const { slack, pacer, sleep, limit } = worker

  // Acks first: while requests are being answered, no more batches run than Slack has call slots.
  const acks = createAcksInFlight({ quietMs: ACKS_QUIET_MS })
  const deliveries = await parts.start('deliveries', () => createDeliveries({
    store, logger, owner, attempts: settings.retryAttempts, backoffMs: settings.retryBackoffSeconds * 1000, leaseMs: settings.databaseLeaseSeconds * 1000,
    batches: (server) => worker.batches(server), foldMs: FOLD_MS,
    // Acks first, wherever they are answered: on this loop, or on the acknowledging thread.
    acks: listeners.server ? acks : acksOfThread(listeners.acks, { quietMs: ACKS_QUIET_MS }),
    // Batches hold a lock connection each on PostgreSQL: no more are admitted than there are connections.
    parallel: store.soleServer ? BATCHES_AT_ONCE : PARALLEL_CALLS, parallelWhileAcking: PARALLEL_CALLS,
  }), async (own, deadline) => { drained = await own.stop(deadline, () => shutdown.abort()) })
  const { mailboxes, retries, batches, handOff } = deliveries
  metrics.watch({ mailboxes: () => ({ queued: mailboxes.queued(), active: mailboxes.active() }) })
  // What an intake has just committed: the batch holding it need not read it back (run-batch.ts).
  const handOffFresh = (event: LifecycleEvent) => {
    batches.fresh(event)
    handOff(event)
  }

  // Writes the last run left with an unknown outcome are settled first, so that the replay updates them.
  await parts.step('recover intents', () => worker.recoverIntents())
  const pending = await parts.step('replay', () => store.pendingDeliveries())
  for (const delivery of pending) {
    batches.unsure(delivery.prKey)
    handOffStored(delivery, handOff, logger)
  }
  if (pending.length > 0) logger.info('replaying pending deliveries', { count: pending.length })
  await retries.refreshParked()

  scheduler.add({ name: 'cleanup', when: { everyMs: HOUR_MS }, period: cleanupRunKey, run: () => runCleanup({ store, logger, ttlDays: settings.messageTtlDays, turnaroundKeepDays: settings.insights.keepDays }).then(() => undefined) })
  // The day's first cleanup (if no process has run it yet) before ready, as the start-up log shows; then hourly.
  await parts.step('first cleanup', () => scheduler.fire('cleanup'))
  scheduler.add({ name: DIRECT_MESSAGES_JOB, when: { everyMs: options.directMessageIntervalMs ?? 30_000, atStart: true }, run: () => worker.personal.sendDue() })
  if (talkBack) scheduler.add({ name: 'relink-sweep', when: { everyMs: options.relinkSweepMs ?? RELINK_SWEEP_MS, atStart: true }, run: () => sweepRelinks({ store, notices: talkBack.notices, now: clock }) })
  // Reminders (docs/review-loop.md#reminders): only while notify.reminders is on; every replica runs the round, its rows make each reminder once.
  if (settings.reminders) {
    const remind = createReminders({
      reminders: settings.reminders, directMessages: settings.directMessages, holidays: settings.digest.holidays,
      users: new Map(settings.hosts.map((h) => [h.id, h.users])), store, directory: worker.personal.people, outbox: worker.outbox, pacer, logger,
      kickDirectMessages,
    })
    scheduler.add({ name: 'reminders', when: { everyMs: options.reminderIntervalMs ?? REMINDER_SWEEP_MS, atStart: true }, run: () => remind(clock()) })
  }
  // insights.weekly: one post a week per channel, the week's row held by one replica (docs/review-loop.md#weekly-summary).
  startWeekly({
    scheduler, ...weeklyFigureDeps(settings, store), store, outbox: worker.outbox, pacer, logger, owner,
    holdMs: WEEKLY_HOLD_LEASES * settings.databaseLeaseSeconds * 1000, weekly: settings.insights.weekly, timeZone: settings.digest.timezone,
  })
  const digestCommand = startDigest({ scheduler, store, outbox: worker.outbox, pacer, logger, mappings: hostMappings(settings.hosts), digest: settings.digest, onRun: metrics.digestRun })

  // With the acknowledging thread, its intakes take the deliveries (run-ack-thread.ts); this app has no webhook route.
  const webhooks = settings.ackThread ? [] : [...hosts.values()].map((own) => ({
    host: own.host,
    secrets: [own.webhookSecret],
    accept: createIntake({
      host: own.host, mappings: own.mappings, follow: followRoutes(own.follow), reviews: settings.reviews, store, logger, handOff: handOffFresh, busy: mailboxes.has,
      talkBack: settings.talkBack,
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
    reviews: talkBack && createReviewFromSlack({ talkBack, hosts, store, slack, logger, limits, now: Date.now }),
    codeReplies: talkBack && createCodeThreadReply({ talkBack, slack, logger, limits }),
    threadReply: talkBack && createThreadReplyEvent({
      store, talkBack, limits, handOff: handOffFresh, logger, now: clock,
      note: (channel, user, text, threadTs) => pacer.call('chat.postEphemeral', channel, () => slack.postEphemeral(channel, user, text, threadTs)),
    }),
  })
  // The socket connects once the listeners serve (below); until then its state reads `connecting`.
  const socketState = createSocketState()
  metrics.watch({ slackSocket: () => ({ open: socketState.state() === 'open', reconnects: socketState.reconnects() }) })
  // A delivery waits for the budget no longer than Node gives a request (requestTimeout); full for longer is a wedge.
  const budget = options.bodyBudget ?? createBodyBudget({ ...BODY_BUDGET, maxWaitMs: mayWaitMs })
  // The acknowledging thread's budget is its own: it says since when it has been full.
  const bodiesFullFor = () => listeners.server ? budget.fullFor() : Date.now() - (listeners.bodiesFullSince() ?? Date.now())
  const appDeps: AppDeps = {
    webhooks, logger, budget,
    slackLane,
    health: {
      database: database.state, slack: slackToken.current, parked: retries.parked,
      bodies: () => (bodiesFullFor() > mayWaitMs ? 'full' : 'ok'),
      ...(settings.socketMode ? { socket: socketState.state, socketRefused: socketState.refused } : {}),
      missing: () => missing,
      ...(talkBack ? { talkBack: talkBack.clientTroubles } : {}),
      sealedLinks: () => sealedLinks,
    },
    observe: metrics.delivery, metrics: settings.metricsListen ? undefined : metricsRoute(metrics),
    slack: receive && secrets.slackSigningSecret !== undefined ? { signingSecret: secrets.slackSigningSecret, receive } : undefined,
    talkBack: talkBack && { service: talkBack, linked: personal?.publishHome },
  }
  const app = createApp(appDeps)

  // Commands that change messages hand their work to this server instead of racing it (docs/control-channel.md).
  const controlPath = controlSocketPath(settings)
  if (controlPath) {
    const handlers = new Map<string, ControlHandler>([
      ['reconcile', reconcileControlHandler({ settings, hosts, store, logger, handOff, limit })],
      ['digest', digestCommand],
      ['replay-parked', replayParkedControlHandler({ store, logger, handOff, refresh: retries.refreshParked })],
    ])
    await parts.start('control socket', () => startControlServer({ path: controlPath, handlers, logger }), (control, deadline) => control?.stop(deadline))
  }

  // Ready: from here on the listeners serve the app (`listening` keeps meaning "deliveries are taken") and the
  // jobs run. Stopped first of these: no new request is taken while the parts behind it finish.
  await parts.start('serve', async () => {
    if (listeners.server) listeners.open(acks.counted(toNodeHandler(app)), metrics)
    else await listeners.open({ app, handOff: handOffFresh, observe: metrics.delivery }, metrics)
    scheduler.start()
  }, (_serving, deadline) => listeners.close(deadline))
  // Socket Mode connects once the gate is open: an envelope is acted on, and acknowledged, only from here on; stopped
  // first, so that Slack stops sending over it before anything it asks for could no longer be acted on.
  if (settings.socketMode) {
    await parts.start('socket', async () => socketState.connect(await startSocketMode({ settings, secrets, receive, logger, timeouts: options.socketTimeouts })),
      () => socketState.stop())
  }
  const { server, port, url } = listeners
  logger.info('listening', {
    address: listeners.address, hosts: providers, routes: [...hosts.values()].map((own) => webhookPath(own.host)), port,
    ...(settings.ackThread ? { acknowledging: 'own thread' } : {}),
  })
  if (listeners.metrics) logger.info('serving /metrics on its own listener', { address: listeners.metrics.address, port: listeners.metrics.port })
  await parts.start('reconcile on start', () => startReconcileOnStart({ settings, hosts, store, logger, handOff, limit }), (reconcile) => reconcile.stop())

  const settle = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs
    // With the acknowledging thread, what it handed off may still be on its way to the mailboxes.
    while (!listeners.server && listeners.inTransit() > 0) {
      if (Date.now() > deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    return mailboxes.drain(Math.max(0, deadline - Date.now()))
  }
  const holding = () => ({
    mailboxes: mailboxes.active(), pacer: pacer.stats(), sleeps: sleep.pending(), retries: retries.scheduled(),
    shutdownListeners: getEventListeners(shutdown.signal, 'abort').length,
  })
  return {
    server, port, settle, holding, url, stop, parts: parts.names,
    metricsUrl: `${listeners.metrics ? listeners.metrics.url : url}/metrics`,
  }
}
