import { PrheraldError } from '../errors.ts'

/**
 * What every unauthenticated request body may hold in memory together (issue 23.2). A git host's body must be
 * read whole before its signature can be checked, so without a bound 300 unsigned 960 KiB bodies cost 300 MiB.
 * A body is admitted before it is read, for its declared Content-Length (a chunked body: the whole body
 * limit), and gives its room back once it is authenticated or refused: a verified delivery holds nothing
 * here. Until admitted its socket is not read (TCP holds the sender back); when too many wait already, it is
 * shed. Small bodies (every real pull-request event) have a lane of their own, so a flood of large unsigned
 * bodies does not keep the host's deliveries waiting behind it. Slack's routes never use it.
 */
export interface BodyBudget {
  /** Waits for room for a body of up to `bytes`; resolves with the release. Rejects with `server_busy` when too many wait. */
  admit(bytes: number): Promise<() => void>
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
  /** Bodies up to `smallBody` bytes use the small lane. */
  smallBody: number
  small: LaneLimits
  large: LaneLimits
}

/** 4 MiB for bodies up to 64 KiB, 16 MiB for larger ones: at most 20 MiB of unauthenticated bodies at once. */
export const BODY_BUDGET: BodyBudgetLimits = {
  smallBody: 64 * 1024,
  small: { maxBytes: 4 * 1024 * 1024, maxWaiting: 512 },
  large: { maxBytes: 16 * 1024 * 1024, maxWaiting: 64 },
}

interface Lane {
  admit(bytes: number): Promise<void>
  release(bytes: number): void
  used(): number
  waiting(): number
}

function createLane(limits: LaneLimits, onChange: () => void): Lane {
  let used = 0
  const queue: Array<{ bytes: number; go: () => void }> = []
  // A body alone is always admitted, so a bound below the body limit cannot wedge the lane.
  const fits = (bytes: number) => used === 0 || used + bytes <= limits.maxBytes
  const take = (bytes: number) => {
    used += bytes
    onChange()
  }
  return {
    admit(bytes) {
      if (queue.length === 0 && fits(bytes)) return Promise.resolve(take(bytes))
      if (queue.length >= limits.maxWaiting) {
        return Promise.reject(new PrheraldError('server_busy', 'too many unauthenticated request bodies are waiting to be read; try again shortly'))
      }
      return new Promise<void>((go) => queue.push({ bytes, go }))
    },
    release(bytes) {
      used -= bytes
      while (queue.length > 0 && fits(queue[0]!.bytes)) {
        const next = queue.shift()!
        take(next.bytes)
        next.go()
      }
    },
    used: () => used,
    waiting: () => queue.length,
  }
}

export function createBodyBudget(limits: BodyBudgetLimits = BODY_BUDGET): BodyBudget {
  let peak = 0
  const total = () => small.used() + large.used()
  const onChange = () => { peak = Math.max(peak, total()) }
  const small = createLane(limits.small, onChange)
  const large = createLane(limits.large, onChange)
  return {
    async admit(bytes) {
      const lane = bytes <= limits.smallBody ? small : large
      await lane.admit(bytes)
      let released = false
      return () => {
        if (released) return
        released = true
        lane.release(bytes)
      }
    },
    get used() { return total() },
    get peak() { return peak },
    get waiting() { return small.waiting() + large.waiting() },
  }
}
