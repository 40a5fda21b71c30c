import type { Settings } from '../config/settings.ts'
import type { ConnectedHost, HostSet } from '../config/connect-hosts.ts'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { CallLimit } from '../worker/call-limit.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { DeliveryStore, HookMarks, JobClaims, MessageStore } from '../store/store.ts'
import type { GateClock } from '../hosts/host-rate-gate.ts'
import { logReport } from './log-report.ts'
import { runReconcile } from './run-reconcile.ts'
import { hasCredentials } from '../hosts/contract.ts'

/** `reconcile.on_start` looks at the pull requests touched this long before start-up. */
export const ON_START_WINDOW_MS = 24 * 60 * 60_000

/**
 * Replicas sharing a database that start within the same minute run it once between them (JobClaims.claimRun).
 * A minute, not longer: a server restarted a minute or more after the last start reconciles again, since
 * deliveries may have failed in between. Two starts on either side of a minute's edge both run it, which is
 * harmless: a difference is applied once by the mailboxes, and a duplicate redelivery is dropped by the intake.
 */
export const ON_START_CLAIM_MS = 60_000

export interface ReconcileOnStartDeps {
  settings: Settings
  /** Every configured host: each with credentials is reconciled, one after another. */
  hosts: HostSet
  store: MessageStore & DeliveryStore & HookMarks & JobClaims
  logger: Logger
  /** The intake's hand-off: the pull request's mailbox. */
  handOff: (event: PullRequestEvent) => void
  /** The server's git-host call slots. */
  limit: CallLimit
  now?: () => number
  clock?: GateClock
}

export interface ReconcileOnStart {
  /** Settles when the run is over (at once when there is none); never rejects. */
  done: Promise<void>
  /** Shutdown: no new git-host call or hand-off starts; calls in flight end within their timeout. */
  stop(): void
}

/**
 * `reconcile.on_start: true`: one reconcile of the pull requests touched in the last day, in the background
 * after the listener is up (it never delays /healthz), its differences handed to the mailboxes like
 * deliveries, and on GitHub the redelivery of deliveries that failed while the server was down.
 */
export function startReconcileOnStart(deps: ReconcileOnStartDeps): ReconcileOnStart {
  const { settings, logger } = deps
  if (!settings.reconcileOnStart) return { done: Promise.resolve(), stop: () => {} }
  const able: ConnectedHost[] = []
  for (const own of deps.hosts.values()) {
    if (hasCredentials(own.gitAccess)) able.push(own)
    else {
      const variable = own.host.variables.token
      logger.warn(`reconcile.on_start is set but ${variable} is not; start-up reconcile skipped`, {
        host: own.id, variable, fix: `set ${variable} (docs/reconcile.md lists the scopes), or set reconcile.on_start: false`,
      })
    }
  }
  if (able.length === 0) return { done: Promise.resolve(), stop: () => {} }
  const stopping = new AbortController()
  const refuseWhenStopping = () => {
    if (stopping.signal.aborted) throw new ShutdownInterrupt('shutting down')
  }
  const limit: CallLimit = (run) => deps.limit(() => {
    refuseWhenStopping()
    return run()
  })
  const now = deps.now ?? Date.now

  const done = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
    const runKey = new Date(Math.floor(now() / ON_START_CLAIM_MS) * ON_START_CLAIM_MS).toISOString()
    if (!(await deps.store.claimRun('reconcile:on_start', runKey))) {
      return logger.info('reconcile at start-up left to the replica that claimed it', { run_key: runKey })
    }
    logger.info('reconcile at start-up', { touched_since_hours: ON_START_WINDOW_MS / 3_600_000, hosts: able.map((own) => own.id) })
    for (const own of able) {
      // One host's failure (its API down) is that host's: the others are still reconciled.
      try {
        const report = await runReconcile({
          settings, host: own, store: deps.store, limit, clock: deps.clock, redeliver: true,
          touchedSince: now() - ON_START_WINDOW_MS,
          apply: async (event) => {
            refuseWhenStopping()
            deps.handOff(event)
          },
          onWait: (waitMs, resumeAt) => logger.warn('git host rate limit reached; reconcile waits', { host: own.id, wait_ms: waitMs, until: new Date(resumeAt).toISOString() }),
        })
        logReport(logger, report)
      } catch (error) {
        if (error instanceof ShutdownInterrupt || stopping.signal.aborted) throw error
        logger.error('reconcile at start-up failed', { host: own.id, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined })
      }
    }
  }).catch((error: unknown) => {
    if (error instanceof ShutdownInterrupt || stopping.signal.aborted) return logger.debug('reconcile at start-up cut short by shutdown')
    logger.error('reconcile at start-up failed', { ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined })
  })
  return { done, stop: () => stopping.abort() }
}
