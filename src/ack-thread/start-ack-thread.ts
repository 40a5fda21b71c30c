import { Worker } from 'node:worker_threads'
import type { H3 } from 'h3'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import { PrheraldError, type ErrorCode } from '../errors.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import type { ListenAddress, Settings } from '../config/settings.ts'
import type { Listeners } from '../http/bind-listeners.ts'
import { startMetricsServer } from '../http/metrics-server.ts'
import type { Logger } from '../log/logger.ts'
import type { Metrics } from '../metrics/create-metrics.ts'
import { HEAP_LIMITS } from '../memory/heap-limits.ts'
import { createWriteTurn } from '../store/write-turn.ts'
import type { SharedAcks } from '../mailbox/acks-in-flight.ts'
import { answerForwarded } from '../http/answer-forwarded.ts'
import type { AckThreadData, FromThread, ToThread } from './thread-messages.ts'

export interface AckThreadDeps {
  data: AckThreadData
  logger: Logger
  /** `server.metrics_listen`: /metrics on a listener of its own, on this thread (its app answers it). */
  metricsListen: ListenAddress | undefined
  /**
   * The thread ended without being asked to (an error in it, or its heap limit): no delivery can be taken any
   * more. Called once, after the error is logged; the service stops (docs/decisions.md).
   */
  onDeath(): void
  /** Tests: the worker, to end it as a crash would. */
  onWorker?: ((worker: Worker) => void) | undefined
}

/** What the processing side gives the thread once every start-up step is done. */
export interface AckThreadServed {
  /** Answers every request that is not a delivery (src/server.ts's app, without webhook routes). */
  app: H3
  /** A delivery the thread committed and acknowledged: into the mailboxes (service.ts's handOffFresh). */
  handOff(event: PullRequestEvent): void
  observe: Metrics['delivery']
}

/** The listeners when the webhook listener is the thread's: as bind-listeners.ts's, without a Node server on this thread. */
export interface AckThread extends Omit<Listeners, 'server' | 'open'> {
  server: undefined
  /** Starts taking deliveries (the thread opens its store connection and its intakes), and serves /metrics from `source`. */
  open(served: AckThreadServed, source: Pick<Metrics, 'render' | 'contentType'>): Promise<void>
  /** Stops the listener (requests in flight finish until `deadline`), then the thread's store; resolves once the thread ended. */
  close(deadline: number): Promise<void>
  /** Since when the thread's body budget has let nothing in; undefined while it is not full. */
  bodiesFullSince(): number | undefined
  /** Deliveries the thread committed and handed off that have not reached the mailboxes yet. */
  inTransit(): number
  /** The thread's requests, for the mailboxes' acks first (acks-in-flight.ts's acksOfThread). */
  acks: SharedAcks
}

// Built: dist/src/ack-thread/ack-thread-entry.js. From the sources (the tests): Node runs the .ts itself.
const ENTRY = new URL(`./ack-thread-entry.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)

/**
 * Starts the acknowledging thread (run-ack-thread.ts) and resolves once its listener is bound. What it
 * commits is handed off here, its metrics observed here and its log lines written by this thread's logger,
 * so that the mailboxes, /metrics and the log stay one each.
 */
export async function startAckThread(deps: AckThreadDeps): Promise<AckThread> {
  const { logger } = deps
  // "maxYoungGenerationSizeMb: The maximum size of a heap space for recently created objects" (Node's
  // worker_threads docs, resourceLimits): the same cap as the main thread's young generation (heap-limits.ts).
  const worker = new Worker(ENTRY, { workerData: deps.data, resourceLimits: { maxYoungGenerationSizeMb: HEAP_LIMITS.youngMiB } })
  deps.onWorker?.(worker)
  const send = (message: ToThread, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer)
  let served: AckThreadServed | undefined
  let bodiesFullSince: number | undefined
  // live: bound and not asked to close; ended: the worker exited.
  let live = false
  let ended = false
  let step: { resolve: (message: FromThread) => void; reject: (error: Error) => void } | undefined
  const next = () => new Promise<FromThread>((resolve, reject) => {
    if (ended) reject(new PrheraldError('ack_thread', 'the acknowledging thread has ended'))
    else step = { resolve, reject }
  })
  const settle = (message: FromThread) => {
    const waiting = step
    step = undefined
    if (message.kind !== 'failed') return waiting?.resolve(message)
    const { code, message: text, fix } = message.error
    waiting?.reject(code ? new PrheraldError(code as ErrorCode, text, { fix }) : new Error(text))
  }

  worker.on('message', (message: FromThread) => {
    if (message.kind === 'accepted') {
      for (const [level, msg, fields] of message.logs) logger[level](msg, fields)
      for (const observation of message.observed) served?.observe(...observation)
      for (const event of message.events) served?.handOff(event)
      Atomics.add(deps.data.handOffs, 1, message.events.length)
    } else if (message.kind === 'request') {
      // Forwarded only once the gate is open, which is after `open` set `served`; answerForwarded never rejects.
      if (served) void answerForwarded(served.app, message, logger).then((answer) => send(answer, [answer.body]))
    } else if (message.kind === 'bodies') bodiesFullSince = message.fullSince
    else settle(message)
  })
  // An uncaught error in the thread: its kind and message (our own code's words), never a payload.
  worker.on('error', (error) => logger.error('the acknowledging thread failed', { kind: error.name, error: error.message }))
  worker.on('exit', (code) => {
    ended = true
    step?.reject(new PrheraldError('ack_thread', `the acknowledging thread ended (exit code ${code})`))
    step = undefined
    if (!live) return
    live = false
    logger.error('the acknowledging thread ended; prherald stops, and the supervisor restarts it', {
      exit_code: code, fix: 'see the line before this one; deliveries acknowledged so far are stored and are applied after the restart',
    })
    deps.onDeath()
  })

  const closeThread = async (deadline: number) => {
    live = false
    if (ended) return
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    const closed = next().catch(() => undefined)
    send({ kind: 'close', deadline })
    await closed
    // Its store and listener are closed: nothing is left to finish. A thread still running a second on is ended.
    const late = setTimeout(() => void worker.terminate(), 1000)
    await exited
    clearTimeout(late)
  }

  const bound = await next()
  if (bound.kind !== 'bound') throw new PrheraldError('ack_thread', `the acknowledging thread said ${bound.kind} before it was bound`)
  live = true
  const metrics = deps.metricsListen && await startMetricsServer({ listen: deps.metricsListen }).catch(async (error: unknown) => {
    await closeThread(Date.now())
    throw error
  })
  return {
    server: undefined,
    port: bound.port,
    address: bound.address,
    url: bound.url,
    metrics: metrics || undefined,
    async open(given, source) {
      served = given
      const opened = next()
      send({ kind: 'open' })
      await opened
      metrics?.serve(source)
    },
    async close(deadline) {
      await closeThread(deadline)
      await metrics?.close()
    },
    bodiesFullSince: () => bodiesFullSince,
    inTransit: () => Atomics.load(deps.data.handOffs, 0) - Atomics.load(deps.data.handOffs, 1),
    acks: { inFlight: () => Atomics.load(deps.data.requestsInFlight, 0), lastAnsweredAt: () => deps.data.lastAnsweredAt[0]! },
  }
}

/** The thread's start data from the settings and the connected hosts: plain values only, no client (AckThreadData). */
export function ackThreadData(settings: Settings, hosts: HostSet, tuning: Pick<AckThreadData, 'httpTimeouts' | 'maxConnections' | 'databaseLockWaitMs'>): AckThreadData {
  return {
    ...tuning,
    handOffs: new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)),
    requestsInFlight: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
    lastAnsweredAt: new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT)),
    writeTurn: createWriteTurn(),
    listen: settings.listen,
    database: settings.database,
    logLevel: settings.logLevel,
    reviews: settings.reviews,
    talkBack: settings.talkBack,
    hosts: [...hosts.values()].map((own) => ({ id: own.id, mappings: own.mappings, users: own.users, follow: own.follow, webhookSecret: own.webhookSecret })),
  }
}
