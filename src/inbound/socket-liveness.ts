import type { WebSocket } from 'ws'

/** How long a socket may stay quiet before it is taken as dead; each has a default, tests shorten them. */
export interface SocketLiveness {
  /** Slack pings every socket it holds: nothing heard from it (a ping or a frame) for this long is a dead socket. 30 s by default. */
  serverPingMs?: number
  /** How often prherald pings Slack itself; 10 s by default. */
  pingEveryMs?: number
  /** How long the pong to prherald's ping may take; 5 s by default. */
  pongMs?: number
}

/**
 * Watches one open socket from both ends. A half-open TCP connection (a NAT or proxy that forgot it, a peer
 * gone without a FIN) delivers nothing and raises nothing for as long as the kernel keeps retransmitting, so
 * the socket would look open while deaf: Slack's pings stopping, or prherald's own ping going unanswered,
 * is what shows it (the same two watches as @slack/socket-mode's serverPingTimeout and clientPingTimeout).
 * `dead` is called at most once, with the reason; the returned function ends the watch (the socket closed).
 */
export function watchLiveness(socket: WebSocket, options: SocketLiveness, dead: (reason: string) => void): () => void {
  const serverPingMs = options.serverPingMs ?? 30_000
  const pongMs = options.pongMs ?? 5000
  let awaiting: NodeJS.Timeout | undefined
  let watching = true
  const die = (reason: string) => {
    if (!watching) return
    stop()
    dead(reason)
  }
  const quiet = setTimeout(() => die(`nothing heard from Slack (no ping) for ${serverPingMs} ms`), serverPingMs).unref()
  const heard = () => quiet.refresh()
  const answered = () => {
    clearTimeout(awaiting)
    awaiting = undefined
  }
  const pinging = setInterval(() => {
    if (awaiting || socket.readyState !== socket.OPEN) return
    awaiting = setTimeout(() => die(`no pong from Slack within ${pongMs} ms`), pongMs).unref()
    socket.ping()
  }, options.pingEveryMs ?? 10_000).unref()
  socket.on('ping', heard).on('message', heard).on('pong', answered)

  function stop() {
    watching = false
    clearTimeout(quiet)
    clearTimeout(awaiting)
    clearInterval(pinging)
    socket.off('ping', heard).off('message', heard).off('pong', answered)
  }
  return stop
}
