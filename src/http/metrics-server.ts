import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { H3 } from 'h3'
import { toNodeHandler } from 'h3/node'
import type { ListenAddress } from '../config/settings.ts'
import { createTimedServer } from './http-timeouts.ts'
import { listenOn } from './listen-on.ts'
import { clientErrorResponse, errorResponse, json } from './respond.ts'
import { createStartupGate } from './startup-gate.ts'
import type { Metrics } from '../metrics/create-metrics.ts'
import { metricsRoute } from '../metrics/metrics-route.ts'

export interface MetricsServer {
  /** `host:port` as listened on, for the log line. */
  address: string
  port: number
  /** `http://host:port` of the listener (loopback for a wildcard address). */
  url: string
  /** Serves `/metrics` from these metrics; until then it answers 503 (starting). */
  serve(metrics: Pick<Metrics, 'render' | 'contentType'>): void
  close(): Promise<void>
}

/**
 * `server.metrics_listen`: `/metrics` on a listener of its own (another port, usually loopback or an internal
 * interface), so the public port that takes webhooks never serves it. Nothing else is served there. Bound at
 * the start of the start-up, like the webhook listener, so that a port in use stops it before anything else.
 */
export async function startMetricsServer(deps: { listen: ListenAddress }): Promise<MetricsServer> {
  const gate = createStartupGate(false)
  const server: Server = createTimedServer(gate.handler)
  await listenOn(server, deps.listen, 'server.metrics_listen', '127.0.0.1:9464')
  const address = server.address() as AddressInfo
  const wildcard = address.address === '::' || address.address === '0.0.0.0'
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    address: `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    port: address.port,
    url: `http://${host}:${address.port}`,
    serve: (metrics) => {
      const app = new H3({ onError: (error, event) => (error.status < 500 ? clientErrorResponse(error, event) : errorResponse(error)) })
      const route = metricsRoute(metrics)
      app.all('/metrics', (event) => ['GET', 'HEAD'].includes(event.req.method)
        ? route()
        : json(405, { error: 'method_not_allowed', message: `${event.req.method} is not allowed here; use GET or HEAD` }, { allow: 'GET, HEAD' }))
      gate.open(toNodeHandler(app))
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve())
      // A scraper keeps its connection alive between scrapes; nothing in flight here is worth waiting for.
      server.closeAllConnections()
    }),
  }
}
