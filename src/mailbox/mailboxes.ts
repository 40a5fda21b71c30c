import PQueue from 'p-queue'

/**
 * One serial queue per pull request, so that two deliveries for the same PR never race (that is what
 * would post two messages), while different PRs proceed in parallel. A queue exists only while it has
 * work: memory follows the number of active pull requests, not every PR ever seen.
 */
export interface Mailboxes {
  /** Queues `task` behind earlier work for `key`. Task errors are the task's own to handle. */
  post(key: string, task: () => Promise<void>): void
  /** Number of pull requests with queued or running work. */
  active(): number
  /** Resolves true when every mailbox is empty, false if `timeoutMs` passed first. */
  drain(timeoutMs: number): Promise<boolean>
  /** Drops queued (not running) work; used when the shutdown window has expired. */
  clear(): void
}

export function createMailboxes(onTaskError: (key: string, error: unknown) => void): Mailboxes {
  const queues = new Map<string, PQueue>()
  let idleWaiters: Array<() => void> = []

  const release = (key: string, queue: PQueue) => {
    if (queue.size === 0 && queue.pending === 0 && queues.get(key) === queue) {
      queues.delete(key)
      if (queues.size === 0) {
        const waiters = idleWaiters
        idleWaiters = []
        for (const resolve of waiters) resolve()
      }
    }
  }

  return {
    post(key, task) {
      let queue = queues.get(key)
      if (!queue) {
        queue = new PQueue({ concurrency: 1 })
        queues.set(key, queue)
      }
      const q = queue
      void q.add(async () => {
        try {
          await task()
        } catch (error) {
          onTaskError(key, error)
        }
      }).finally(() => release(key, q))
    },
    active: () => queues.size,
    drain(timeoutMs) {
      if (queues.size === 0) return Promise.resolve(true)
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
      for (const queue of queues.values()) queue.clear()
    },
  }
}
