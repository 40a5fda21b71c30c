import type { SlackSocket, SocketState } from './slack-socket.ts'

/** What /readyz and /metrics read of the socket, which connects only once the listeners serve. */
export interface SocketStateHolder {
  /** `connecting` until the socket is connected, then the socket's own state. */
  state(): SocketState
  reconnects(): number
  /** Slack's refusal of the last try to connect, while no socket is open (slack-socket.ts `refused`). */
  refused(): { error: string; fix: string } | undefined
  /** The socket once it is started (undefined when socket mode is off). */
  connect(socket: SlackSocket | undefined): void
  /** Stops the socket, if one was connected. */
  stop(): Promise<void>
}

/**
 * Holds the Socket Mode socket for the parts built before it (the health routes, the metrics): the socket
 * is started last, once the start-up gate opens, and those parts ask for its state from the start.
 */
export function createSocketState(): SocketStateHolder {
  let socket: SlackSocket | undefined
  return {
    state: () => socket?.state() ?? 'connecting',
    reconnects: () => socket?.reconnects() ?? 0,
    refused: () => socket?.refused(),
    connect: (started) => { socket = started },
    stop: async () => { await socket?.stop() },
  }
}
