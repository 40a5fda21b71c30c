import type { Server } from 'node:http'
import type { Logger } from '../log/logger.ts'

/**
 * Open connections the webhook listener keeps at once: each held connection costs a socket, a
 * file descriptor and whatever its unread body holds, so a flood of them must end somewhere. The git hosts
 * and Slack open a few at a time; a thousand is far above any real load.
 */
export const MAX_CONNECTIONS = 1024

/** How often the limit's line may be written while connections keep being dropped: one line, not one per connection. */
const QUIET_MS = 60_000

export interface ConnectionLimitDeps {
  server: Server
  logger: Logger
  max?: number
  now?: () => number
}

/** Closes new connections beyond the limit (node:http maxConnections), with one line when it is reached. */
export function limitConnections(deps: ConnectionLimitDeps): void {
  const max = deps.max ?? MAX_CONNECTIONS
  const now = deps.now ?? Date.now
  deps.server.maxConnections = max
  let loggedAt = Number.NEGATIVE_INFINITY
  let dropped = 0
  deps.server.on('drop', () => {
    dropped++
    if (now() - loggedAt < QUIET_MS) return
    loggedAt = now()
    deps.logger.warn('connection limit reached; new connections are closed until open ones end', {
      max_connections: max, dropped,
      fix: 'a flood of connections (or a proxy that keeps too many open); see docs/security.md#limits',
    })
    dropped = 0
  })
}
