import type { RequestListener, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Settings } from '../config/settings.ts'
import type { Metrics } from '../metrics/create-metrics.ts'
import { startMetricsServer, type MetricsServer } from './metrics-server.ts'
import { createTimedServer, HTTP_TIMEOUTS, type HttpTimeouts } from './http-timeouts.ts'
import { listenOn } from './listen-on.ts'
import { createStartupGate } from './startup-gate.ts'

export interface Listeners {
  server: Server
  port: number
  /** `host:port` as bound, for the log line. */
  address: string
  /** `http://127.0.0.1:port` (or `[::1]`) of the webhook listener. */
  url: string
  /** `server.metrics_listen`'s own listener, when set. */
  metrics: MetricsServer | undefined
  /** Hands every request to the app, and `/metrics` to its listener: the start-up steps are done. */
  open(handler: RequestListener, metrics: Pick<Metrics, 'render' | 'contentType'>): void
  /** Stops accepting; requests in flight may finish until `deadline`, then are cut. */
  close(deadline: number): Promise<void>
}

export interface BindOptions {
  settings: Pick<Settings, 'listen' | 'metricsListen'>
  /** Starts a listener over a Node handler (`npm run dev`: listhen's); default node:http on settings.listen. */
  listen?: (handler: RequestListener) => Promise<Server>
  httpTimeouts?: Partial<HttpTimeouts>
}

/**
 * Binds the webhook listener and the metrics listener first thing in the start-up, so that an address in
 * use stops the start before any migration runs. Until `open`, they answer as a server still starting
 * (startup-gate.ts): `/readyz` 503, deliveries 503.
 */
export async function bindListeners(options: BindOptions): Promise<Listeners> {
  const { settings } = options
  const gate = createStartupGate(true)
  let server: Server
  if (options.listen) server = await options.listen(gate.handler)
  else {
    server = createTimedServer(gate.handler, { ...HTTP_TIMEOUTS, ...options.httpTimeouts })
    await listenOn(server, settings.listen, 'PRHERALD_LISTEN / server.listen', ':8081')
  }
  const metrics = settings.metricsListen && await startMetricsServer({ listen: settings.metricsListen }).catch(async (error: unknown) => {
    await closeServer(server, Date.now())
    throw error
  })
  const bound = server.address() as AddressInfo
  return {
    server,
    port: bound.port,
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    url: `http://${bound.family === 'IPv6' ? '[::1]' : '127.0.0.1'}:${bound.port}`,
    metrics: metrics || undefined,
    open: (handler, source) => {
      gate.open(handler)
      metrics?.serve(source)
    },
    close: async (deadline) => {
      await closeServer(server, deadline)
      await metrics?.close()
    },
  }
}

/** Stops accepting, lets in-flight requests finish, and cuts what is still open at the deadline. */
export async function closeServer(server: Server, deadline: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  const idleSweeper = setInterval(() => server.closeIdleConnections(), 50)
  const timer = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()))
  server.closeIdleConnections()
  await closed
  clearInterval(idleSweeper)
  clearTimeout(timer)
}
