import { hostOf } from '../hosts/registry.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import type { ControlHandler } from '../control/control-response.ts'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { CallLimit } from '../worker/call-limit.ts'
import { PrheraldError } from '../errors.ts'
import type { Logger } from '../log/logger.ts'
import type { Store } from '../store/store.ts'
import { formatReport, reportFailed } from './format-report.ts'
import { logReport } from './log-report.ts'
import { runReconcile } from './run-reconcile.ts'
import { hasCredentials } from '../hosts/contract.ts'

export interface ReconcileControlDeps {
  settings: Settings
  secrets: Pick<Secrets, 'gitAccess'>
  store: Store
  logger: Logger
  /** The pull request's mailbox, as for a delivery. */
  handOff: (event: PullRequestEvent) => void
  limit: CallLimit
}

/** `{ repository?: "owner/repo", dryRun?: boolean }`, as prherald-reconcile sends it. */
function readRequest(body: unknown): { repository: string | undefined; dryRun: boolean } {
  const { repository, dryRun } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  if ((repository !== undefined && (typeof repository !== 'string' || !/^(?:[^/\s]+\/)+[^/\s]+$/.test(repository))) ||
    (dryRun !== undefined && typeof dryRun !== 'boolean')) {
    throw new PrheraldError('usage', 'the reconcile request is malformed', { fix: 'run the prherald-reconcile of the same version as the server' })
  }
  return { repository, dryRun: dryRun === true }
}

/**
 * The server's side of `prherald-reconcile` while it runs (docs/control-channel.md): the same run as the
 * command's, with the differences handed to the pull requests' mailboxes, so they never race a delivery,
 * and missed GitHub deliveries redelivered, since this server is there to receive them. The answer is the
 * lines the command prints and its exit status; the server logs the run as well.
 */
export function reconcileControlHandler(deps: ReconcileControlDeps): ControlHandler {
  return async (body) => {
    const request = readRequest(body)
    if (!hasCredentials(deps.secrets.gitAccess)) {
      const variable = hostOf(deps.settings.gitProvider).variables.token
      throw new PrheraldError('env_missing', `the running prherald-server has no ${variable}: reconcile asks the git host for the state of each pull request`, {
        fix: `set ${variable} in the server's environment and restart it (docs/reconcile.md lists the scopes)`,
      })
    }
    const report = await runReconcile({
      settings: deps.settings, access: deps.secrets.gitAccess, store: deps.store, limit: deps.limit, repository: request.repository, redeliver: true,
      apply: request.dryRun ? undefined : async (event) => deps.handOff(event),
      onWait: (waitMs, resumeAt) => deps.logger.warn('git host rate limit reached; reconcile waits', { wait_ms: waitMs, until: new Date(resumeAt).toISOString() }),
    })
    logReport(deps.logger, report)
    return { lines: formatReport(report), exitCode: reportFailed(report) ? 1 : 0 }
  }
}
