import type { RequestListener } from 'node:http'
import { H3 } from 'h3'
import { toNodeHandler } from 'h3/node'
import { refuseAmbiguousPaths } from './refuse-ambiguous-paths.ts'
import { json } from './respond.ts'

export interface StartupGate {
  /** The listener's handler from its bind on. */
  handler: RequestListener
  /** Hands every request from now on to `handler`: the start-up steps are done. */
  open(handler: RequestListener): void
}

/** Seconds a client is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 5

/**
 * What a listener answers between its bind and the end of the start-up steps. Every route but the health
 * ones answers 503, deliveries included: nothing can be stored yet, so nothing may be acknowledged; the git
 * host shows the failure and can redeliver it, and reconcile catches up on what it does not. `health`:
 * `/healthz` (200) and `/readyz` (503) answer too; the metrics listener has neither.
 */
export function createStartupGate(health: boolean): StartupGate {
  const starting = new H3()
  if (health) {
    // Alive, so a liveness probe does not kill a server in the middle of its migrations; not ready, so nothing is sent to it yet.
    starting.all('/healthz', () => json(200, { status: 'starting' }))
    starting.all('/readyz', () => json(503, { status: 'starting', message: 'prherald is starting (migrations, replay of pending deliveries); ready in a moment' }))
  }
  starting.all('/**', () => json(503, { error: 'starting', message: 'prherald is starting and cannot take requests yet; try again in a moment' }, {
    'retry-after': String(RETRY_AFTER_SECONDS),
  }))
  let current: RequestListener = toNodeHandler(starting)
  return {
    // Both listeners and every stage of the start-up: the raw path is checked before any route is chosen.
    handler: refuseAmbiguousPaths((req, res) => current(req, res)),
    open: (handler) => { current = handler },
  }
}
