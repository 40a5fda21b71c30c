import type { Settings } from '../config/settings.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import type { ControlHandler } from '../control/control-response.ts'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { CallLimit } from '../worker/call-limit.ts'
import { PrheraldError } from '../errors.ts'
import type { Logger } from '../log/logger.ts'
import type { DeliveryStore, HookMarks, MessageStore } from '../store/store.ts'
import { formatReport, reportFailed } from './format-report.ts'
import { logReport } from './log-report.ts'
import { runReconcile } from './run-reconcile.ts'
import { hasCredentials } from '../hosts/contract.ts'

export interface ReconcileControlDeps {
  settings: Settings
  /** Every configured host: a request names one, or runs for all. */
  hosts: HostSet
  store: MessageStore & DeliveryStore & HookMarks
  logger: Logger
  /** The pull request's mailbox, as for a delivery. */
  handOff: (event: PullRequestEvent) => void
  limit: CallLimit
}

/** `{ repository?: "owner/repo", dryRun?: boolean, provider?: "github" }`, as prherald-reconcile sends it. */
function readRequest(body: unknown): { repository: string | undefined; dryRun: boolean; provider: string | undefined } {
  const { repository, dryRun, provider } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  if ((repository !== undefined && (typeof repository !== 'string' || !/^(?:[^/\s]+\/)+[^/\s]+$/.test(repository))) ||
    (dryRun !== undefined && typeof dryRun !== 'boolean') || (provider !== undefined && typeof provider !== 'string')) {
    throw new PrheraldError('usage', 'the reconcile request is malformed', { fix: 'run the prherald-reconcile of the same version as the server' })
  }
  return { repository, dryRun: dryRun === true, provider }
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
    const chosen = [...deps.hosts.values()].filter((own) => request.provider === undefined || own.id === request.provider)
    if (chosen.length === 0) {
      throw new PrheraldError('usage', `the running prherald-server does not serve ${request.provider}`, { fix: `name one of its hosts: ${[...deps.hosts.keys()].join(', ')}` })
    }
    const lines: string[] = []
    let failed = false
    for (const own of chosen) {
      if (chosen.length > 1) lines.push(`${own.host.words.name}:`)
      if (!hasCredentials(own.gitAccess)) {
        const variable = own.host.variables.token
        // Named alone, the host is an error; among several, it is reported and the others are reconciled.
        const error = new PrheraldError('env_missing', `the running prherald-server has no ${variable}: reconcile asks ${own.host.words.name} for the state of each pull request`, {
          fix: `set ${variable} in the server's environment and restart it (docs/reconcile.md lists the scopes)`,
        })
        if (chosen.length === 1) throw error
        lines.push(`  SKIP ${error.message}; ${error.fix}`)
        continue
      }
      const report = await runReconcile({
        settings: deps.settings, host: own, store: deps.store, limit: deps.limit, repository: request.repository, redeliver: true,
        apply: request.dryRun ? undefined : async (event) => deps.handOff(event),
        onWait: (waitMs, resumeAt) => deps.logger.warn('git host rate limit reached; reconcile waits', { host: own.id, wait_ms: waitMs, until: new Date(resumeAt).toISOString() }),
      })
      logReport(deps.logger, report)
      lines.push(...formatReport(report).map((line) => (chosen.length > 1 ? `  ${line}` : line)))
      failed ||= reportFailed(report)
    }
    return { lines, exitCode: failed ? 1 : 0 }
  }
}
