import { errorFields, type Logger } from '../log/logger.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'

export interface DirectMessageRunner {
  /** Look now (something was queued): a message due now goes now, not at the next round. */
  kick(): void
  stop(): Promise<void>
}

/**
 * Runs the direct-message sender at start (messages held over a restart whose time has come), every
 * `intervalMs` (a held message's morning), and whenever something is queued; one round at a time.
 */
export function startDirectMessages(deps: { sendDue: () => Promise<void>; logger: Logger; intervalMs: number }): DirectMessageRunner {
  let running: Promise<void> | undefined
  let again = false
  let stopped = false
  const round = (): void => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = deps.sendDue()
      .catch((error: unknown) => {
        if (!(error instanceof ShutdownInterrupt)) deps.logger.warn('direct messages round failed; the next round tries again', errorFields(error))
      })
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          round()
        }
      })
  }
  const timer = setInterval(round, deps.intervalMs)
  timer.unref()
  round()
  return {
    kick: round,
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}
