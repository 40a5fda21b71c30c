import { PrheraldError } from '../errors.ts'

/**
 * What every unauthenticated request body may hold in memory together. A git host's body must be
 * read whole before its signature can be checked, so without a bound 300 unsigned 960 KiB bodies cost 300 MiB.
 * A body is admitted before it is read, for its declared Content-Length (a chunked body: the whole body
 * limit), and gives its room back once it is authenticated or refused: a verified delivery holds nothing
 * here. Until admitted its socket is not read (TCP holds the sender back); when too many wait already, it is
 * shed. Small bodies (every real pull-request event) have a lane of their own, so a flood of large unsigned
 * bodies does not keep the host's deliveries waiting behind it. A waiter whose client goes away (or is dropped
 * at Node's requestTimeout) leaves the queue at once: otherwise it would be admitted for a body
 * nobody sends. Slack's routes use their own lane (slack-body-lane.ts).
 */
export interface BodyBudget {
  /**
   * Waits for room for a body of up to `bytes`; resolves with the release. Rejects with `server_busy` when too
   * many wait, and with `client_aborted` when `gone` aborts first (the client closed its connection).
   */
  admit(bytes: number, gone?: AbortSignal): Promise<() => void>
  /** Milliseconds a lane has been unable to admit anything (a body waits and none was let in since); 0 when none. */
  fullFor(now?: number): number
  /** Bytes admitted now, the most ever admitted at once, and the bodies waiting (for the tests and the bench). */
  readonly used: number
  readonly peak: number
  readonly waiting: number
}

export interface LaneLimits {
  maxBytes: number
  maxWaiting: number
}

export interface BodyBudgetLimits {
  /**
   * How long a body may wait for room before it is shed with `server_busy`: a body that arrived whole is no
   * longer under Node's requestTimeout, so without this it could wait for ever behind a full lane.
   */
  maxWaitMs: number
  /** Bodies up to `smallBody` bytes use the small lane. */
  smallBody: number
  small: LaneLimits
  large: LaneLimits
}

/** 4 MiB for bodies up to 64 KiB, 16 MiB for larger ones: at most 20 MiB of unauthenticated bodies at once. */
export const BODY_BUDGET: BodyBudgetLimits = {
  maxWaitMs: 10_000,
  smallBody: 64 * 1024,
  small: { maxBytes: 4 * 1024 * 1024, maxWaiting: 512 },
  large: { maxBytes: 16 * 1024 * 1024, maxWaiting: 64 },
}

interface Lane {
  admit(bytes: number, gone?: AbortSignal): Promise<void>
  release(bytes: number): void
  used(): number
  waiting(): number
  /** When the lane last had to make a body wait without letting any in since; undefined when it is not full. */
  fullSince(): number | undefined
}

interface Waiter {
  bytes: number
  go: () => void
}

const gone = () => new PrheraldError('client_aborted', 'the client closed the connection while its body waited to be read')

const busy = (why: string) => new PrheraldError('server_busy', `${why}; try again shortly`)

function createLane(limits: LaneLimits, maxWaitMs: number, onChange: () => void): Lane {
  let used = 0
  let fullSince: number | undefined
  const queue: Waiter[] = []
  // A body alone is always admitted, so a bound below the body limit cannot wedge the lane.
  const fits = (bytes: number) => used === 0 || used + bytes <= limits.maxBytes
  const take = (bytes: number) => {
    used += bytes
    fullSince = undefined
    onChange()
  }
  const admitWaiting = () => {
    while (queue.length > 0 && fits(queue[0]!.bytes)) {
      const next = queue.shift()!
      take(next.bytes)
      next.go()
    }
  }
  return {
    admit(bytes, signal) {
      if (signal?.aborted) return Promise.reject(gone())
      if (queue.length === 0 && fits(bytes)) return Promise.resolve(take(bytes))
      if (queue.length >= limits.maxWaiting) {
        return Promise.reject(busy('too many unauthenticated request bodies are waiting to be read'))
      }
      fullSince ??= Date.now()
      return new Promise<void>((resolve, reject) => {
        const leave = (error: PrheraldError) => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          const at = queue.indexOf(waiter)
          if (at < 0) return
          queue.splice(at, 1)
          reject(error)
          // The one that left may have been the head that held the others back.
          admitWaiting()
        }
        const onAbort = () => leave(gone())
        const timer = setTimeout(() => leave(busy(`no room for this request body within ${maxWaitMs} ms`)), maxWaitMs)
        timer.unref()
        const waiter: Waiter = {
          bytes,
          go: () => {
            clearTimeout(timer)
            signal?.removeEventListener('abort', onAbort)
            resolve()
          },
        }
        queue.push(waiter)
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    },
    release(bytes) {
      used -= bytes
      admitWaiting()
      // Room given back and nobody left waiting: not full. A waiter that merely left proves no room.
      if (queue.length === 0) fullSince = undefined
    },
    used: () => used,
    waiting: () => queue.length,
    fullSince: () => fullSince,
  }
}

export function createBodyBudget(limits: BodyBudgetLimits = BODY_BUDGET): BodyBudget {
  let peak = 0
  const total = () => small.used() + large.used()
  const onChange = () => { peak = Math.max(peak, total()) }
  const small = createLane(limits.small, limits.maxWaitMs, onChange)
  const large = createLane(limits.large, limits.maxWaitMs, onChange)
  return {
    async admit(bytes, signal) {
      const lane = bytes <= limits.smallBody ? small : large
      await lane.admit(bytes, signal)
      let released = false
      return () => {
        if (released) return
        released = true
        lane.release(bytes)
      }
    },
    fullFor(now = Date.now()) {
      const since = Math.min(small.fullSince() ?? now, large.fullSince() ?? now)
      return now - since
    },
    get used() { return total() },
    get peak() { return peak },
    get waiting() { return small.waiting() + large.waiting() },
  }
}
