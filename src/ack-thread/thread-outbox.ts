import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import { LOG_LEVELS, type Logger, type LogLevel } from '../log/logger.ts'
import type { FromThread, LogEntry, Observation } from './thread-messages.ts'

export interface ThreadOutbox {
  /** The thread's logger: its lines are written by the main thread's logger (one format, one redaction). */
  logger: Logger
  /** A delivery the intake committed, for the main thread's mailboxes. */
  handOff(event: PullRequestEvent): void
  /** A delivery answered, for the main thread's metrics. */
  observe(...observation: Observation): void
  /** Posts what is queued now (before the thread says it closed). */
  flush(): void
}

/**
 * What the thread tells the main thread, gathered over one turn of its event loop and posted as one message:
 * under a burst a group commit hands off tens of deliveries at once, and one structured clone of them all
 * costs less than one per delivery. Posted at the end of the turn (setImmediate), after the 200s it wrote.
 */
export function createThreadOutbox(post: (message: FromThread) => void, level: LogLevel): ThreadOutbox {
  let events: PullRequestEvent[] = []
  let observed: Observation[] = []
  let logs: LogEntry[] = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (events.length === 0 && observed.length === 0 && logs.length === 0) return
    post({ kind: 'accepted', events, observed, logs })
    events = []
    observed = []
    logs = []
  }
  const soon = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(flush)
  }
  // Below the configured level a line is dropped here, not cloned to be dropped there.
  const lowest = LOG_LEVELS.indexOf(level)
  const line = (at: LogEntry[0]) => LOG_LEVELS.indexOf(at) < lowest ? () => {} : (msg: string, fields?: LogEntry[2]) => {
    logs.push([at, msg, fields])
    soon()
  }
  return {
    logger: { trace: line('trace'), debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') },
    handOff(event) {
      events.push(event)
      soon()
    },
    observe(...observation) {
      observed.push(observation)
      soon()
    },
    flush,
  }
}
