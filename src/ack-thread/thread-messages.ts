import type { PullRequestEvent, Provider } from '../../machines/pull-request-event.ts'
import type { Mappings } from '../config/schema.ts'
import type { DatabaseTarget, HostSettings, ListenAddress, ReviewSettings } from '../config/settings.ts'
import type { TalkBackSettings } from '../config/talk-back-settings.ts'
import type { ForwardedAnswer, ForwardedRequest } from '../http/answer-forwarded.ts'
import type { HttpTimeouts } from '../http/http-timeouts.ts'
import type { LogFields, LogLevel } from '../log/logger.ts'
import type { WriteTurn } from '../store/write-turn.ts'
import type { DeliveryOutcome } from '../metrics/delivery-outcome.ts'

/**
 * What the acknowledging thread is started with (workerData): plain data only, cloned once. Hosts are named
 * by id and looked up in the registry inside the thread; no API client crosses (the thread builds none).
 */
export interface AckThreadData {
  listen: ListenAddress
  httpTimeouts: HttpTimeouts
  maxConnections: number | undefined
  database: DatabaseTarget
  databaseLockWaitMs: number | undefined
  hosts: ReadonlyArray<Pick<HostSettings, 'id' | 'users' | 'follow'> & { mappings: Mappings; webhookSecret: string }>
  reviews: ReviewSettings
  talkBack: TalkBackSettings | undefined
  logLevel: LogLevel
  /**
   * Two counters shared with the main thread: [0] events the thread handed off, [1] events the main thread
   * received. Their difference is what is on its way (RunningService.settle waits for it).
   */
  handOffs: Int32Array
  /** Shared with the main thread's mailboxes (acks-in-flight.ts's acksOfThread): [0] requests in flight on the thread. */
  requestsInFlight: Int32Array
  /** [0] Date.now() of the thread's last answer; written by the thread only. */
  lastAnsweredAt: Float64Array
  /** SQLite: the process's one write turn, shared by the thread's connection and the main thread's (write-turn.ts). */
  writeTurn: WriteTurn
}

export type LogEntry = [level: 'trace' | 'debug' | 'info' | 'warn' | 'error', msg: string, fields: LogFields | undefined]
export type Observation = [provider: Provider, outcome: DeliveryOutcome, seconds: number]

/** Thread to main thread. `accepted`: what the intake committed in one turn of the thread's loop, with its metrics and log lines. */
export type FromThread =
  | { kind: 'bound'; port: number; address: string; url: string }
  | { kind: 'failed'; error: { code: string | undefined; message: string; fix: string | undefined } }
  | { kind: 'opened' }
  | { kind: 'accepted'; events: PullRequestEvent[]; observed: Observation[]; logs: LogEntry[] }
  /** Since when the thread's body budget has let nothing in (undefined: it is not full), for /readyz. */
  | { kind: 'bodies'; fullSince: number | undefined }
  | ForwardedRequest
  | { kind: 'closed' }

/** Main thread to thread: start taking deliveries (the start-up steps are done), an answer, or stop. */
export type ToThread =
  | { kind: 'open' }
  | ForwardedAnswer
  | { kind: 'close'; deadline: number }
