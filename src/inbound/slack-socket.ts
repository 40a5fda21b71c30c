import { WebSocket } from 'ws'
import { errorFields, type Logger } from '../log/logger.ts'
import { callSlackApi, createWebClient } from '../slack/slack-api.ts'
import type { SlackInboundRequest } from './slack-inbound.ts'
import { watchLiveness, type SocketLiveness } from './socket-liveness.ts'

/** 'connecting' until the first hello, 'open' while a socket is, 'reconnecting' between two, 'closed' once stopped. */
export type SocketState = 'connecting' | 'open' | 'reconnecting' | 'closed'

export interface SlackSocketDeps {
  /** SLACK_APP_TOKEN (xapp-…, connections:write). */
  appToken: string
  /** SLACK_API_URL: apps.connections.open is asked there like every other Slack call. */
  apiUrl: string
  logger: Logger
  /**
   * The inbound pipeline (slack-inbound.ts): resolves once the request's id is committed, with what the
   * acknowledgement carries (a slash command's answer) or undefined. A rejection leaves it unacknowledged: Slack sends it again.
   */
  receive: (request: SlackInboundRequest) => Promise<unknown>
  /** The wait before the n-th reconnection in a row (1, 2, …); tests shorten it. */
  backoffMs?: (attempt: number) => number
  /** How long a new socket may take to say hello before it is closed and tried again; 10 s by default. */
  helloMs?: number
  /** How long an open socket may stay quiet before it is taken as dead (socket-liveness.ts). */
  liveness?: SocketLiveness
}

export interface SlackSocket {
  state(): SocketState
  /** Slack's refusal of the last try to connect (apps.connections.open's `error`, such as invalid_auth), until a socket opens. */
  refused(): { error: string; fix: string } | undefined
  /** Sockets opened after the first (a refresh Slack asked for, or after a drop): for the metrics. */
  reconnects(): number
  /** Closes the socket (and stops a reconnection under way); resolves once nothing is left open. */
  stop(): Promise<void>
}

/** An envelope's request, as the HTTP receiver would have decoded it (a slash command's payload is its form's fields). */
function requestOf(type: unknown, payload: unknown): SlackInboundRequest | undefined {
  if (type === 'interactive') return { kind: 'interactive', payload }
  if (type === 'events_api') return { kind: 'event', payload }
  if (type !== 'slash_commands' || typeof payload !== 'object' || payload === null) return undefined
  return { kind: 'command', form: new URLSearchParams(Object.entries(payload).filter(([, v]) => typeof v === 'string') as Array<[string, string]>) }
}
const backoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** (attempt - 1))

/**
 * Slack's Socket Mode (docs.slack.dev/apis/events-api/using-socket-mode) over `ws` (Node's own WebSocket
 * cannot send or see ping frames): the URL from apps.connections.open, `hello` when it is ready, envelopes
 * acknowledged by their envelope_id once the pipeline has stored them, `disconnect` when Slack wants a new
 * connection (the new one is opened before the old is closed), and a dropped socket, or one found deaf by its
 * pings, reconnected with backoff. Nothing here throws into the process: every failure is logged and retried
 * until stop().
 */
export function startSlackSocket(deps: SlackSocketDeps): SlackSocket {
  const client = createWebClient({ token: deps.appToken, apiUrl: deps.apiUrl })
  const wait = deps.backoffMs ?? backoff
  let state: SocketState = 'connecting'
  let refused: { error: string; fix: string } | undefined
  let current: WebSocket | undefined
  let failures = 0
  let opens = 0
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let busy = false
  const sockets = new Set<WebSocket>()

  const openUrl = async (): Promise<string> => {
    const { data } = await callSlackApi(client, 'apps.connections.open')
    if (data.ok === true && typeof data.url === 'string') return data.url
    const error = String(data.error ?? 'no url')
    // Slack answered, and said no (a well-formed but wrong token: invalid_auth): /readyz says so until a socket opens.
    refused = { error, fix: FIXES[error] ?? 'check SLACK_APP_TOKEN and SLACK_API_URL' }
    throw Object.assign(new Error(`apps.connections.open answered ${error}`), { fix: refused.fix })
  }

  /** One socket, resolved at its hello; a socket that closes before it, or says nothing for helloMs, rejects. */
  const connect = async (): Promise<WebSocket> => {
    const url = await openUrl()
    if (stopped) throw new Error('stopped')
    const socket = new WebSocket(url, { perMessageDeflate: false })
    sockets.add(socket)
    // A socket that opens and never says hello would hold the reconnection for ever: cut, and tried again.
    const silent = setTimeout(() => socket.terminate(), deps.helloMs ?? 10_000)
    let unwatch = () => {}
    let deaf: string | undefined
    return new Promise<WebSocket>((resolve, reject) => {
      socket.on('message', (data) => {
        const frame = parse(data)
        if (frame?.type === 'hello') {
          clearTimeout(silent)
          unwatch()
          // A deaf socket answers no close frame: cut at once, and its close reconnects it like a drop.
          unwatch = watchLiveness(socket, deps.liveness ?? {}, (reason) => { deaf = reason; socket.terminate() })
          resolve(socket)
        }
        else if (frame?.type === 'disconnect') onDisconnect(socket, String(frame.reason ?? ''))
        else if (frame && typeof frame.envelope_id === 'string') onEnvelope(socket, frame.envelope_id, frame)
      })
      socket.on('close', () => {
        clearTimeout(silent)
        unwatch()
        sockets.delete(socket)
        reject(new Error('the socket closed before hello'))
        if (socket === current) dropped(deaf)
      })
      socket.on('error', () => {}) // a close follows every error; it is handled there
    })
  }

  const onEnvelope = (socket: WebSocket, id: string, frame: Record<string, unknown>) => {
    const request = requestOf(frame.type, frame.payload)
    // A kind prherald does not take is acknowledged, or Slack would send it again.
    const taken = request ? deps.receive(request) : Promise.resolve(undefined)
    taken.then((payload) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload === undefined ? { envelope_id: id } : { envelope_id: id, payload }))
    }, (error: unknown) => deps.logger.warn('slack socket envelope not taken; Slack sends it again', { envelope_type: String(frame.type), ...errorFields(error) }))
  }

  const onDisconnect = (socket: WebSocket, reason: string) => {
    if (socket !== current) return
    if (reason === 'too_many_websockets') {
      // Slack refuses this one: close it and ask again later, not at once (every replica would stampede).
      deps.logger.error('Slack refuses another socket for this app: too_many_websockets (at most 10 per app)', { fix: FIXES.too_many_websockets })
      socket.close(1000)
      return
    }
    deps.logger.info('slack socket asked to reconnect', { reason })
    // The old socket keeps delivering until the new one said hello (Slack sends a refresh's disconnect ahead).
    reconnect(0)
  }

  const dropped = (deaf: string | undefined) => {
    current = undefined
    if (stopped) return
    state = 'reconnecting'
    if (deaf) deps.logger.warn('slack socket is deaf (half-open): cut it; reconnecting', { reason: deaf })
    else deps.logger.warn('slack socket closed; reconnecting')
    reconnect(Math.max(1, failures))
  }

  const opened = (socket: WebSocket) => {
    busy = false
    if (stopped) return socket.close(1000)
    const before = current
    current = socket
    failures = 0
    opens += 1
    state = 'open'
    refused = undefined
    before?.close(1000)
    deps.logger.info('slack socket open')
  }

  const failed = (error: unknown) => {
    busy = false
    if (stopped) return deps.logger.debug('slack socket not opened: the client was stopped meanwhile')
    failures += 1
    deps.logger.warn('slack socket could not connect; retrying', { attempt: failures, ...errorFields(error), fix: (error as { fix?: string }).fix })
    // A refresh that failed while the old socket still delivers is tried again when that one closes.
    if (!current) reconnect(failures)
  }

  /** Opens a new socket after the backoff of the `attempt`-th failure in a row (none for 0); the one before is closed at its hello. */
  const reconnect = (attempt: number) => {
    if (stopped || busy) return
    busy = true
    timer = setTimeout(() => void connect().then(opened, failed), attempt === 0 ? 0 : wait(attempt))
  }

  reconnect(0)
  return {
    state: () => state,
    refused: () => refused,
    reconnects: () => Math.max(0, opens - 1),
    async stop() {
      stopped = true
      state = 'closed'
      clearTimeout(timer)
      const closing = [...sockets].map((socket) => new Promise<void>((done) => {
        if (socket.readyState === WebSocket.CLOSED) return done()
        socket.once('close', () => done())
        socket.close(1000)
        // A socket that does not answer the close frame (deaf) is cut, not waited on for ws's 30 s.
        setTimeout(() => socket.terminate(), 1000).unref()
      }))
      await Promise.all(closing)
    },
  }
}

const FIXES: Record<string, string> = {
  invalid_auth: 'SLACK_APP_TOKEN is not valid; copy an app-level token (xapp-…) from Basic Information in the Slack app',
  not_allowed_token_type: 'SLACK_APP_TOKEN must be an app-level token (xapp-…), not the bot token',
  missing_scope: 'give the app-level token the connections:write scope (Basic Information, App-Level Tokens)',
  too_many_websockets: 'run at most 10 prherald replicas in socket mode, or turn slack.socket_mode off on some',
}

function parse(data: unknown): Record<string, unknown> | undefined {
  try {
    const frame = JSON.parse(String(data)) as unknown
    return frame && typeof frame === 'object' ? (frame as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
