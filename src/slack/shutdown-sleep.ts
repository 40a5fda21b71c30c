import { ShutdownInterrupt } from './retry-transient.ts'

export interface ShutdownSleep {
  /** Resolves after `ms`, or rejects with ShutdownInterrupt as soon as shutdown starts. */
  sleep(ms: number): Promise<void>
  readonly aborted: boolean
  /** Sleeps in progress (none once the service is idle). */
  pending(): number
}

/**
 * Backoff sleeps that end at shutdown. One listener on the shutdown signal for the whole service, not
 * one per sleep: `timers/promises`' setTimeout with `{ signal }` adds a listener per call, so a burst of
 * pull requests backing off at once passed Node's limit of 10 (MaxListenersExceededWarning) and held a
 * closure per sleep on the signal.
 */
export function createShutdownSleep(signal: AbortSignal): ShutdownSleep {
  const sleeping = new Map<NodeJS.Timeout, (error: unknown) => void>()
  signal.addEventListener('abort', () => {
    for (const [timer, reject] of sleeping) {
      clearTimeout(timer)
      reject(new ShutdownInterrupt('shutting down'))
    }
    sleeping.clear()
  }, { once: true })
  return {
    sleep(ms) {
      if (signal.aborted) return Promise.reject(new ShutdownInterrupt('shutting down'))
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          sleeping.delete(timer)
          resolve()
        }, ms)
        sleeping.set(timer, reject)
      })
    },
    get aborted() {
      return signal.aborted
    },
    pending: () => sleeping.size,
  }
}
