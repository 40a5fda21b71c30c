import { randomUUID } from 'node:crypto'
import { pullRequestKey, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import { isPrheraldError, type PrheraldError } from '../errors.ts'
import { hasMessage, type DeliveryStore, type MessageStore, type PullRequestRef } from '../store/store.ts'
import type { GitHost, HostReconcile } from '../hosts/contract.ts'
import { differenceOf, reconcileEvent, type ReconcileChange } from './reconcile-difference.ts'
import { stopsRun } from '../hosts/git-host-error.ts'

export interface ReconcileDeps {
  store: MessageStore & DeliveryStore
  host: GitHost
  readPullRequest: HostReconcile['readPullRequest']
  /**
   * Hands a recorded synthetic delivery to the lifecycle path: the pull request's mailbox in a server, the
   * worker itself in the CLI. Absent: a dry run, which records and changes nothing.
   */
  apply?: ((event: PullRequestEvent) => Promise<void>) | undefined
  /** owner/repo: only this repository's pull requests. */
  repository?: string | undefined
  /** Only pull requests whose rows were touched since (unix ms). */
  touchedSince?: number | undefined
  /** Told how many pull requests the run checks, then once per pull request checked: a long run's progress. */
  onChecked?: ((done: number, total: number) => void) | undefined
}

/** One pull request reconcile changed (or would change), or could not check. */
export interface ReconcileLine {
  /** owner/repo#number */
  pullRequest: string
  changes?: ReconcileChange[]
  /** Why it could not be checked (the error's message; its fix is in `fix`). */
  error?: string
  fix?: string | undefined
}

export interface ReconcileResult {
  /** Pull requests shown as open or draft that the run was to check. */
  total: number
  /** Only the pull requests changed (or that would change) and those that failed; the rest were right. */
  lines: ReconcileLine[]
  changed: number
  unchanged: number
  failed: number
  /** Left unchecked because the run stopped (the git host's rate limit, or it refused the token). */
  notChecked: number
  /** Set when the run stopped (runStop below): the message and what to do. */
  stopped?: RunStop | undefined
}

type Outcome = { line?: ReconcileLine; notChecked?: true }

/** Why a reconcile run stopped before checking everything: the message and what to do. */
export interface RunStop {
  message: string
  fix: string | undefined
}

/** The report's `stopped` line; a refused token is named by its variable, the host's 401 kept as the detail. */
export function runStop(host: GitHost, error: PrheraldError): RunStop {
  if (error.code !== 'git_host_auth') return { message: error.message, fix: error.fix }
  return { message: `${host.words.name} refused the token in ${host.variables.token} (${error.message})`, fix: error.fix }
}

const label = (ref: PullRequestRef) => `${ref.repository}#${ref.prNumber}`

/**
 * Brings every message prherald shows as open or draft to the pull request's real state on the git host.
 * A difference becomes a synthetic delivery, recorded in the intake like a webhook's (so a crash replays
 * it) and handed to the same machine / fold / planner path, never edited here. Pull requests are checked
 * concurrently; the git-host call slots and rate gate inside `readPullRequest` bound the calls.
 */
export async function reconcile(deps: ReconcileDeps): Promise<ReconcileResult> {
  const refs = await deps.store.openPullRequests({ provider: deps.host.id, repository: deps.repository, touchedSince: deps.touchedSince })
  let stopped: ReconcileResult['stopped']

  const check = async (ref: PullRequestRef): Promise<Outcome> => {
    const rows = (await deps.store.findMessages(ref)).filter(hasMessage)
    const shown = rows[0]?.lifecycle
    if (!shown || (shown.state !== 'open' && shown.state !== 'draft')) return {}
    if (stopped) return { notChecked: true }
    try {
      const facts = await deps.readPullRequest({ owner: shown.context.owner, repo: shown.context.repo, number: ref.prNumber })
      const difference = differenceOf(shown, facts)
      if (!difference) return {}
      if (deps.apply) {
        const event = reconcileEvent(ref, difference, facts, `reconcile-${randomUUID()}`)
        await deps.store.recordDelivery({ provider: ref.provider, deliveryId: event.deliveryId, prKey: pullRequestKey(event), event })
        await deps.apply(event)
      }
      return { line: { pullRequest: label(ref), changes: difference.changes } }
    } catch (error) {
      if (stopsRun(error)) {
        stopped ??= runStop(deps.host, error)
        return { notChecked: true }
      }
      return { line: { pullRequest: label(ref), error: error instanceof Error ? error.message : String(error), fix: isPrheraldError(error) ? error.fix : undefined } }
    }
  }

  let done = 0
  deps.onChecked?.(done, refs.length)
  const outcomes = await Promise.all(refs.map(async (ref) => {
    const outcome = await check(ref)
    deps.onChecked?.(++done, refs.length)
    return outcome
  }))
  const lines = outcomes.flatMap((o) => (o.line ? [o.line] : []))
  const failed = lines.filter((l) => l.error !== undefined).length
  const notChecked = outcomes.filter((o) => o.notChecked).length
  return {
    total: refs.length, lines, changed: lines.length - failed, unchanged: refs.length - lines.length - notChecked, failed, notChecked, stopped,
  }
}
