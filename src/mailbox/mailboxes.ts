/**
 * One serial mailbox per pull request, so that two deliveries for the same PR never race (that is what
 * would post two messages), while different PRs proceed in parallel. The worker takes everything queued
 * for its pull request at once: deliveries that arrive while a batch is being applied are folded into the
 * next batch, so a burst on one PR costs one round of Slack calls, not one per delivery. A mailbox exists
 * only while it has work, and is a plain array and a flag: memory follows the active pull requests.
 */
export interface Mailboxes<T> {
  /** Queues `item` for `key`; it is applied with whatever else is queued for `key` when its turn comes. */
  post(key: string, item: T): void
  /** Number of pull requests with queued or running work. */
  active(): number
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

export function createMailboxes<T>(work: MailboxWorker<T>, onError: (key: string, error: unknown) => void): Mailboxes<T> {
  const boxes = new Map<string, Mailbox<T>>()
  let idleWaiters: Array<() => void> = []
  let held = 0

  const run = async (key: string, box: Mailbox<T>) => {
    while (box.queued.length > 0) {
      const items = box.queued
      box.queued = []
      try {
        await work(key, items)
      } catch (error) {
        onError(key, error)
      } finally {
        held -= items.length
      }
    }
    boxes.delete(key)
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
