import { createServer, type RequestListener, type Server } from 'node:http'

/**
 * GitHub, GitLab and Bitbucket Cloud give up on a delivery after 10 s, so a request that has not fully arrived by
 * then is already lost for the sender; holding its socket longer only serves a slow or hostile client.
 */
export interface HttpTimeouts {
  /** The request line and headers must arrive within this (node:http headersTimeout). */
  headersMs: number
  /** The whole request, body included, must arrive within this (node:http requestTimeout). */
  requestMs: number
  /** An idle keep-alive connection is closed after this (node:http keepAliveTimeout). */
  keepAliveMs: number
  /** How often node:http looks for requests over their time (connectionsCheckingInterval, 30 s by default). */
  checkIntervalMs: number
}

export const HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 10_000, keepAliveMs: 5_000, checkIntervalMs: 1_000 }

/** The node:http server with these timeouts; a client over one of them gets 408 and its socket is closed. */
export function createTimedServer(listener: RequestListener, t: HttpTimeouts = HTTP_TIMEOUTS): Server {
  const server = createServer({ headersTimeout: t.headersMs, requestTimeout: t.requestMs, connectionsCheckingInterval: t.checkIntervalMs }, listener)
  server.keepAliveTimeout = t.keepAliveMs
  return server
}
