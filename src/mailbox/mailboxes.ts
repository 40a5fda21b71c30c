import type { AcksInFlight } from './acks-in-flight.ts'

/**
 * One serial mailbox per pull request, so that two deliveries for the same PR never race (that is what
 * would post two messages), while different PRs proceed in parallel. The worker takes everything queued
 * for its pull request at once: deliveries that arrive while a batch is being applied are folded into the
 * next batch, so a burst on one PR costs one round of Slack calls, not one per delivery. A mailbox exists
 * only while it has work, and is a plain array and a flag: memory follows the active pull requests.
 *
 * `foldMs`: a pull request's batches start at least this far apart. Its first delivery after a quiet spell
 * starts at once; what arrives within `foldMs` of a batch's start waits for the rest of that time and is
 * applied as one batch. A busy pull request (a storm of check runs, a review with many comments) then costs
 * one fold, plan and commit per window instead of one per delivery (docs/architecture.md, "Mailboxes").
 */
export interface Mailboxes<T> {
  /** Queues `item` for `key`; it is applied with whatever else is queued for `key` when its turn comes. */
  post(key: string, item: T): void
  /** Number of pull requests with queued or running work. */
  active(): number
  /** Whether `key` has queued or running work. */
  has(key: string): boolean
  /** Number of items posted and not yet finished (waiting, or in the batch being applied). */
  queued(): number
  /** Resolves true when every mailbox is empty, false if `timeoutMs` passed first. */
  drain(timeoutMs: number): Promise<boolean>
  /** Drops queued (not running) work; used when the shutdown window has expired. */
  clear(): void
}

/** Applies one batch: every item queued for `key`, in arrival order. A rejection is reported, not rethrown. */
export type MailboxWorker<T> = (key: string, items: T[]) => Promise<void>

interface Mailbox<T> {
  queued: T[]
}

/** The server's `foldMs`: a quarter of a second, well under Slack's one message per second per channel. */
export const FOLD_MS = 250

/**
 * The server's `parallel`: batches applied at once across all pull requests. In a burst every pull request
 * had a batch in flight, each holding its events, plan and rendered messages while it waited for Slack (820
 * in the bench's burst, about 40 MiB live, docs/performance.md); beyond this many they wait their turn in
 * arrival order, gathering what else arrives for them meanwhile. Slack's own limits, not this, set how fast
 * messages go out: 64 batches keep the pacers busy (the paced bench's ten channels finish at the floor). The
 * price: in a storm of more than 64 new pull requests in one channel, a pull request for another channel
 * waits for a slot (docs/architecture.md, "Mailboxes"). While requests are being answered the server admits
 * fewer (`parallelWhileAcking`, acks-in-flight.ts).
 */
export const BATCHES_AT_ONCE = 64

export interface MailboxOptions {
  /** The least time between the starts of one pull request's batches; 0 starts each as soon as it can. */
  foldMs?: number
  /** The most batches applied at once, all pull requests together (default: no limit). */
  parallel?: number
  /** Requests being answered: while any is, at most `parallelWhileAcking` batches are applied at once. */
  acks?: Pick<AcksInFlight, 'busy' | 'onQuiet'>
  parallelWhileAcking?: number
  now?: () => number
}

export function createMailboxes<T>(work: MailboxWorker<T>, onError: (key: string, error: unknown) => void, options: MailboxOptions = {}): Mailboxes<T> {
  const { foldMs = 0, parallel = Number.POSITIVE_INFINITY, acks, parallelWhileAcking = parallel, now = Date.now } = options
  const boxes = new Map<string, Mailbox<T>>()
  // When the last batch of a pull request with no mailbox now started; kept for `foldMs`, then forgotten.
  const lastStarts = new Map<string, number>()
  let idleWaiters: Array<() => void> = []
  let held = 0
  const until = (at: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, at - now())))
  // Slots for `parallel` batches (`parallelWhileAcking` while requests are being answered); a batch without
  // one waits in arrival order, and is let in when a batch ends or the last request in flight is answered.
  let running = 0
  const slotWaiters: Array<() => void> = []
  const limit = () => (acks?.busy() ? parallelWhileAcking : parallel)
  const slot = (): Promise<void> | undefined => {
    if (slotWaiters.length === 0 && running < limit()) {
      running++
      return undefined
    }
    return new Promise<void>((resolve) => slotWaiters.push(resolve))
  }
  const admit = () => {
    while (slotWaiters.length > 0 && running < limit()) {
      running++
      slotWaiters.shift()!()
    }
  }
  const release = () => {
    running--
    admit()
  }
  acks?.onQuiet(admit)

  const run = async (key: string, box: Mailbox<T>) => {
    // The pull request's last batch, when it started less than `foldMs` ago: the first batch waits for it too.
    let started = lastStarts.get(key)
    lastStarts.delete(key)
    while (box.queued.length > 0) {
      if (started !== undefined && now() < started + foldMs) await until(started + foldMs)
      const waiting = slot()
      if (waiting) await waiting
      if (box.queued.length === 0) {
        // Cleared while it waited for a slot.
        release()
        break
      }
      const items = box.queued
      box.queued = []
      started = now()
      try {
        await work(key, items)
      } catch (error) {
        onError(key, error)
      } finally {
        held -= items.length
        release()
      }
    }
    boxes.delete(key)
    if (foldMs > 0 && started !== undefined) {
      const at = started
      lastStarts.set(key, at)
      setTimeout(() => { if (lastStarts.get(key) === at) lastStarts.delete(key) }, Math.max(0, at + foldMs - now())).unref()
    }
    if (boxes.size === 0) {
      const waiters = idleWaiters
      idleWaiters = []
      for (const resolve of waiters) resolve()
    }
  }

  return {
    post(key, item) {
      held++
      const box = boxes.get(key)
      if (box) return void box.queued.push(item)
      const fresh: Mailbox<T> = { queued: [item] }
      boxes.set(key, fresh)
      // Starts at the end of this turn of the event loop: deliveries acknowledged by the same commit fold together.
      setImmediate(() => void run(key, fresh))
    },
    active: () => boxes.size,
    has: (key) => boxes.has(key),
    queued: () => held,
    drain(timeoutMs) {
      if (boxes.size === 0) return Promise.resolve(true)
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          idleWaiters = idleWaiters.filter((w) => w !== done)
          resolve(false)
        }, timeoutMs)
        const done = () => {
          clearTimeout(timer)
          resolve(true)
        }
        idleWaiters.push(done)
      })
    },
    clear() {
      for (const box of boxes.values()) {
        held -= box.queued.length
        box.queued = []
      }
    },
  }
}
