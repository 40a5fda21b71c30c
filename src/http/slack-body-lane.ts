import type { H3Event, HTTPResponse } from 'h3'

/** What the lane needs of a node:http (or http2) request. */
interface HeldRequest {
  readonly complete: boolean
  readonly destroyed: boolean
  destroy(): unknown
  once(event: 'end' | 'close', listener: () => void): unknown
}

/**
 * What the bodies of Slack's routes may hold in memory together before their signature is checked (issue
 * 30.2): without a bound, 200 held ~1 MiB unsigned bodies cost 200 MiB. Unlike the git hosts' budget this
 * lane never makes a request wait and never sheds a new one: Slack gives 3 s for an answer and turns event
 * delivery off after 5 % failures. Slack sends each request whole and at once, so a body still arriving
 * when a newer one needs room belongs to a client holding its connection: the oldest such body is cut
 * (its connection closed) to make room, never the newcomer.
 */
export interface SlackBodyLane {
  /** Room for `req`'s body of up to `bytes`, given back once the body has arrived or the request is closed. */
  hold(req: HeldRequest, bytes: number): void
  /** Bytes held now, the most ever held at once, and the bodies cut so far (tests and /metrics). */
  readonly used: number
  readonly peak: number
  readonly cut: number
}

/** 4 MiB: a few hundred of Slack's own requests (a few KB each), or four interactions at the 1 MiB limit. */
export const SLACK_BODY_BYTES = 4 * 1024 * 1024

export interface SlackBodyLaneDeps {
  maxBytes?: number
}

interface Held {
  req: HeldRequest
  bytes: number
}

export function createSlackBodyLane(deps: SlackBodyLaneDeps = {}): SlackBodyLane {
  const maxBytes = deps.maxBytes ?? SLACK_BODY_BYTES
  // In arrival order: the first unfinished one is the client that has held its connection longest.
  const held = new Set<Held>()
  let used = 0
  let peak = 0
  let cut = 0
  const release = (entry: Held) => {
    if (held.delete(entry)) used -= entry.bytes
  }
  const makeRoom = (bytes: number) => {
    for (const entry of held) {
      if (used + bytes <= maxBytes) return
      // A body that has arrived whole is being checked right now: it gives its room back in a moment.
      if (entry.req.complete) continue
      release(entry)
      cut++
      entry.req.destroy()
    }
  }
  return {
    hold(req, bytes) {
      // Arrived whole with its headers (Slack's usual request): nothing left to wait for.
      if (req.complete || req.destroyed) return
      makeRoom(bytes)
      const entry: Held = { req, bytes }
      held.add(entry)
      used += bytes
      peak = Math.max(peak, used)
      const done = () => release(entry)
      req.once('end', done)
      req.once('close', done)
    },
    get used() { return used },
    get peak() { return peak },
    get cut() { return cut },
  }
}

/** The handler of one of Slack's routes, with its body held in `lane` for its Content-Length (or `limit`). */
export function inSlackLane(lane: SlackBodyLane, limit: number, handler: (event: H3Event) => Promise<HTTPResponse>) {
  return (event: H3Event): Promise<HTTPResponse> => {
    const req = event.runtime?.node?.req
    const declared = Number(event.req.headers.get('content-length') ?? Number.NaN)
    // Over the limit: the route answers 413 without reading it.
    if (req && !(declared > limit)) lane.hold(req, declared >= 0 ? declared : limit)
    return handler(event)
  }
}
