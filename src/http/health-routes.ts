import type { HTTPResponse } from 'h3'
import type { DatabaseState } from '../store/database-watch.ts'
import { json } from './respond.ts'

export interface HealthSources {
  database(): DatabaseState
  /** 'ok', or the error Slack gives for the bot token. */
  slack(): string
  /** Deliveries parked after too many failed batches, as last counted (a number the server refreshes). */
  parked?(): number
  /**
   * 'full' while the unauthenticated body budget has let no body in for longer than a delivery may wait
   * (body-budget.ts fullFor): deliveries are not being read, whatever else says ok.
   */
  bodies?(): 'ok' | 'full'
  /** With slack.socket_mode: the socket's state (slack-socket.ts); anything but `open` means Slack's requests are not arriving. */
  socket?(): string
  /** With slack.socket_mode: why Slack refused the last connection (apps.connections.open's error, with its fix), while it is not open. */
  socketRefused?(): { error: string; fix: string } | undefined
  /**
   * Parts of a configured feature the server started without (the FAILs prherald-doctor prints for them,
   * talk-back-gaps.ts): each one named with its fix, until a restart with it set.
   */
  missing?(): ReadonlyArray<{ name: string; target: string; reason: string; fix?: string | undefined }>
  /** Talk-back's OAuth clients a host's token endpoint did not take: people cannot refresh, their links are kept. */
  talkBack?(): Array<{ host: string; reason: string }>
  /** Linked accounts the configured token keys cannot open, counted at start (sealed-links.ts), with the fix doctor prints. */
  sealedLinks?(): { links: number; fix?: string | undefined } | undefined
}

/**
 * `/healthz` is liveness: 200 while the process serves requests, whatever it reports in its body. A restart
 * mends neither a vanished database (it would start on an empty one and announce every pull request again)
 * nor a refused Slack token, so those show as `degraded` in the body, not as a failure.
 */
export function healthz(sources: HealthSources): HTTPResponse {
  const database = sources.database()
  const slack = sources.slack()
  // Parked deliveries wait for an operator (prherald-migrate replay-parked): degraded, never a restart.
  const parked = sources.parked?.() ?? 0
  const bodies = sources.bodies?.() ?? 'ok'
  // A socket reconnecting is degraded, never a restart: it reconnects by itself, and webhooks are still taken.
  const socket = sources.socket?.()
  const ok = database === 'ok' && slack === 'ok' && parked === 0 && bodies === 'ok' && (socket === undefined || socket === 'open')
  return json(200, {
    status: ok ? 'ok' : 'degraded', database, slack,
    ...(parked > 0 ? { parked_deliveries: parked } : {}), ...(bodies === 'ok' ? {} : { body_budget: bodies }), ...(socket ? { slack_socket: socket } : {}),
  })
}

/**
 * `/readyz` is readiness: 503 while deliveries cannot be stored, so a load balancer stops sending them. A
 * refused Slack token keeps it ready: deliveries are still stored safely and replayed once the token works.
 */
export function readyz(sources: HealthSources): HTTPResponse {
  const database = sources.database()
  if (database !== 'ok') return json(503, { status: 'not_ready', database, message: `the database file was ${database} while the server runs; see the server log` })
  // Not ready either while no delivery body is let in: a wedge must show, not hide behind a 200.
  if (sources.bodies?.() === 'full') {
    return json(503, { status: 'degraded', database, body_budget: 'full', message: 'no webhook body has been admitted for longer than a delivery may wait; see docs/reliability.md' })
  }
  // Deliveries are taken either way: a feature without its part, a socket Slack refuses, or an OAuth client a
  // host's token endpoint does not take, links no configured key opens, is degraded, with the reason (one rule: docs/operations.md).
  const socket = sources.socket?.()
  const refused = socket !== undefined && socket !== 'open' ? sources.socketRefused?.() : undefined
  const missing = (sources.missing?.() ?? []).map((r) => ({ check: r.name, target: r.target, reason: r.reason, fix: r.fix }))
  const oauth = sources.talkBack?.() ?? []
  const sealed = sources.sealedLinks?.()
  return json(200, {
    status: refused || missing.length > 0 || oauth.length > 0 || sealed ? 'degraded' : 'ready', database,
    ...(socket ? { slack_socket: socket } : {}), ...(refused ? { slack_socket_refused: refused.error, slack_socket_fix: refused.fix } : {}),
    ...(missing.length > 0 ? { missing } : {}),
    ...(oauth.length > 0 ? { talk_back_oauth: oauth } : {}),
    ...(sealed ? { sealed_links: sealed.links, sealed_links_fix: sealed.fix } : {}),
  })
}
