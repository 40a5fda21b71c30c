import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'

/**
 * Whether requests are being answered: one is in flight, or the last was answered less than `quietMs` ago
 * (under a burst the next request is usually on its way: the sender's turn, the socket). The mailboxes read it
 * to admit fewer batches while deliveries wait for their acknowledgement (docs/architecture.md, "Acks
 * first"), and hear when requests have been quiet for `quietMs`.
 */
export interface AcksInFlight {
  /** Wraps the server's request listener so that every request is counted. */
  counted(handler: RequestListener): RequestListener
  busy(): boolean
  /** Called once requests have been quiet for `quietMs` (none in flight, none answered meanwhile). */
  onQuiet(listener: () => void): void
}

/**
 * The server's `quietMs`: in a burst the next request follows its answer within a millisecond or two; 20 ms
 * without one is the end of the burst, and the batches it held back start at most that much later.
 */
export const ACKS_QUIET_MS = 20

export function createAcksInFlight(options: { quietMs: number; now?: () => number }): AcksInFlight {
  const { quietMs, now = () => performance.now() } = options
  let inFlight = 0
  let lastAnswered = Number.NEGATIVE_INFINITY
  let timer: NodeJS.Timeout | undefined
  const listeners: Array<() => void> = []
  const quiet = () => inFlight === 0 && now() - lastAnswered >= quietMs
  // One timer at a time, armed when the last request in flight is answered, re-armed while answers keep coming.
  const check = () => {
    timer = undefined
    if (inFlight > 0) return
    if (quiet()) for (const listener of listeners) listener()
    else arm(Math.max(1, lastAnswered + quietMs - now()))
  }
  // Unref'd: it only ever starts batches, whose own work keeps the process up.
  const arm = (ms: number) => { timer = setTimeout(check, ms).unref() }
  const leave = () => {
    inFlight--
    lastAnswered = now()
    if (inFlight === 0 && !timer) arm(quietMs)
  }
  return {
    counted: (handler) => (req: IncomingMessage, res: ServerResponse) => {
      inFlight++
      // A response's `close` comes once its answer is written, or when the client went away first.
      res.once('close', leave)
      handler(req, res)
    },
    busy: () => !quiet(),
    onQuiet: (listener) => void listeners.push(listener),
  }
}

/** Requests another thread answers, as it counts them in memory shared with this one (the acknowledging thread's). */
export interface SharedAcks {
  inFlight(): number
  /** Date.now() of the last answer: both threads' clock, unlike performance.now, whose origin is each thread's own. */
  lastAnsweredAt(): number
}

/**
 * The same signal for requests answered on another thread (server.ack_thread): batches still give the
 * acknowledgements the cores first, now that they no longer share one event loop. Nothing here hears the
 * requests end, so while they are busy a timer looks again every `quietMs` for the quiet.
 */
export function acksOfThread(shared: SharedAcks, options: { quietMs: number; now?: () => number }): Pick<AcksInFlight, 'busy' | 'onQuiet'> {
  const { quietMs, now = Date.now } = options
  const listeners: Array<() => void> = []
  let timer: NodeJS.Timeout | undefined
  const quiet = () => shared.inFlight() === 0 && now() - shared.lastAnsweredAt() >= quietMs
  const check = () => {
    timer = undefined
    if (quiet()) for (const listener of listeners) listener()
    else timer = setTimeout(check, quietMs).unref()
  }
  return {
    busy() {
      if (quiet()) return false
      timer ??= setTimeout(check, quietMs).unref()
      return true
    },
    onQuiet: (listener) => void listeners.push(listener),
  }
}
