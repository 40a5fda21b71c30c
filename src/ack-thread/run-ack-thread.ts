import type { MessagePort } from 'node:worker_threads'
import { H3 } from 'h3'
import { toNodeHandler } from 'h3/node'
import { isPrheraldError } from '../errors.ts'
import { hostOf } from '../hosts/registry.ts'
import { answerAppError } from '../http/app-errors.ts'
import { closeServer } from '../http/bind-listeners.ts'
import { BODY_BUDGET, createBodyBudget } from '../http/body-budget.ts'
import { limitConnections } from '../http/connection-limit.ts'
import { createTimedServer } from '../http/http-timeouts.ts'
import { listenOn } from '../http/listen-on.ts'
import { createStartupGate } from '../http/startup-gate.ts'
import { addWebhookRoutes } from '../http/webhook-routes.ts'
import { createIntake } from '../intake/intake.ts'
import { startIdleRelease } from '../memory/idle-release.ts'
import { mappedId } from '../config/people-map.ts'
import { followRoutes } from '../routing/route-pull-request.ts'
import { openIntakeStore, type OpenedIntakeStore } from '../store/open-intake-store.ts'
import { createForwarder } from './forward-requests.ts'
import type { AckThreadData, FromThread, ToThread } from './thread-messages.ts'
import { createThreadOutbox } from './thread-outbox.ts'

/** How often the thread tells the main thread since when the body budget has been full (for /readyz). */
const BODIES_REPORT_MS = 500

/**
 * The acknowledging thread: the webhook listener, bound first thing (an address in use stops the start), its
 * start-up gate (503 until the main thread says every start-up step is done), then on `open` its own store
 * connection and each host's intake: read, verify, decode, the durable row, the 200, and the committed event
 * posted to the main thread's mailboxes. Every other request is forwarded to the main thread's app. On
 * `close` the listener stops first (requests in flight finish), then the store; the thread then ends.
 */
export async function runAckThread(port: MessagePort, data: AckThreadData): Promise<void> {
  const post = (message: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)
  const outbox = createThreadOutbox(post, data.logLevel)
  const { logger } = outbox
  const fail = (error: unknown) => {
    outbox.flush()
    post({
      kind: 'failed',
      error: {
        code: isPrheraldError(error) ? error.code : undefined,
        message: error instanceof Error ? error.message : String(error),
        fix: isPrheraldError(error) ? error.fix : undefined,
      },
    })
  }

  const gate = createStartupGate(true)
  // Counted for the main thread's mailboxes (acks first): in flight now, and when the last was answered.
  const server = createTimedServer((req, res) => {
    Atomics.add(data.requestsInFlight, 0, 1)
    res.once('close', () => {
      Atomics.sub(data.requestsInFlight, 0, 1)
      data.lastAnsweredAt[0] = Date.now()
    })
    gate.handler(req, res)
  }, data.httpTimeouts)
  try {
    await listenOn(server, data.listen, 'PRHERALD_LISTEN / server.listen', ':8081')
  } catch (error) {
    fail(error)
    port.close()
    return
  }
  limitConnections({ server, logger, max: data.maxConnections })
  const bound = server.address() as { address: string; family: string; port: number }
  post({
    kind: 'bound', port: bound.port,
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    url: `http://${bound.family === 'IPv6' ? '[::1]' : '127.0.0.1'}:${bound.port}`,
  })

  const budget = createBodyBudget({ ...BODY_BUDGET, maxWaitMs: data.httpTimeouts.requestMs })
  let lastFullSince: number | undefined
  const bodiesReport = setInterval(() => {
    const full = budget.fullFor()
    const fullSince = full > 0 ? Date.now() - full : undefined
    if (fullSince === lastFullSince) return
    lastFullSince = fullSince
    post({ kind: 'bodies', fullSince })
  }, BODIES_REPORT_MS)
  bodiesReport.unref()
  const forwarder = createForwarder((request, transfer) => post(request, transfer))
  let opened: OpenedIntakeStore | undefined
  let idle: { stop(): void } | undefined

  const open = async () => {
    const store = opened = await openIntakeStore({
      database: data.database, logger, env: process.env, lockWaitMs: data.databaseLockWaitMs, writeTurn: data.writeTurn,
    })
    const app = new H3({ onError: answerAppError(logger) })
    addWebhookRoutes(app, {
      logger, budget, observe: outbox.observe, ready: () => store.state() === 'ok',
      webhooks: data.hosts.map((own) => {
        const host = hostOf(own.id)
        return {
          host,
          secrets: [own.webhookSecret],
          accept: createIntake({
            host, mappings: own.mappings, follow: followRoutes(own.follow), reviews: data.reviews, store: store.store, logger,
            handOff: (event) => {
              Atomics.add(data.handOffs, 0, 1)
              outbox.handOff(event)
            },
            talkBack: data.talkBack,
            // users: keys GitHub people by login, Bitbucket people by account id (docs/configuration.md#people).
            slackUserOf: (actor) => mappedId(own.users, host.people.keyOf(actor)),
          }),
        }
      }),
    })
    app.all('/**', (event) => forwarder.handler(event))
    gate.open(toNodeHandler(app))
    // The thread's heap is its own: collected after the start and whenever the thread is idle, as the main thread's is.
    idle = startIdleRelease({ logger })
  }

  const close = async (deadline: number) => {
    clearInterval(bodiesReport)
    idle?.stop()
    await closeServer(server, deadline)
    // Every delivery acknowledged before the listener closed is handed off before the thread says it closed.
    outbox.flush()
    await opened?.close()
    post({ kind: 'closed' })
    port.close()
  }

  port.on('message', (message: ToThread) => {
    if (message.kind === 'answer') forwarder.answer(message)
    else if (message.kind === 'open') open().then(() => post({ kind: 'opened' }), fail)
    else void close(message.deadline).catch(fail)
  })
}
