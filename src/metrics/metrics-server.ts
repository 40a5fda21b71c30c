import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { H3 } from 'h3'
import { toNodeHandler } from 'h3/node'
import type { ListenAddress } from '../config/settings.ts'
import { PrheraldError } from '../errors.ts'
import { createTimedServer } from '../http/http-timeouts.ts'
import { json } from '../http/respond.ts'
import type { Metrics } from './create-metrics.ts'
import { metricsRoute } from './metrics-route.ts'

export interface MetricsServer {
  /** `host:port` as listened on, for the log line. */
  address: string
  port: number
  /** `http://host:port` of the listener (loopback for a wildcard address). */
  url: string
  close(): Promise<void>
}

/**
 * `server.metrics_listen`: `/metrics` on a listener of its own (another port, usually loopback or an internal
 * interface), so the public port that takes webhooks never serves it. Nothing else is served there.
 */
export async function startMetricsServer(deps: { listen: ListenAddress; metrics: Pick<Metrics, 'render' | 'contentType'> }): Promise<MetricsServer> {
  const app = new H3()
  const route = metricsRoute(deps.metrics)
  app.all('/metrics', (event) => ['GET', 'HEAD'].includes(event.req.method)
    ? route()
    : json(405, { error: 'method_not_allowed', message: `${event.req.method} is not allowed here; use GET or HEAD` }, { allow: 'GET, HEAD' }))
  const server: Server = createTimedServer(toNodeHandler(app))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(deps.listen.port, deps.listen.host, () => {
      server.off('error', reject)
      resolve()
    })
  }).catch((cause: unknown) => {
    const code = (cause as { code?: unknown }).code
    throw new PrheraldError('config_invalid', `server.metrics_listen: cannot listen on ${deps.listen.host ?? ''}:${deps.listen.port} (${String(code ?? cause)})`, {
      cause, fix: 'choose a free port (and an address of this host) for server.metrics_listen, e.g. 127.0.0.1:9464',
    })
  })
  const address = server.address() as AddressInfo
  const wildcard = address.address === '::' || address.address === '0.0.0.0'
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    address: `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    port: address.port,
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve())
      // A scraper keeps its connection alive between scrapes; nothing in flight here is worth waiting for.
      server.closeAllConnections()
    }),
  }
}
