import { setTimeout as sleep } from 'node:timers/promises'
import type { Settings } from '../config/settings.ts'
import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { CallLimit } from '../worker/call-limit.ts'
import { PrheraldError } from '../errors.ts'
import type { HostApi, MissedDeliveriesResult } from '../hosts/contract.ts'
import type { ConnectedHost } from '../config/connect-hosts.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import type { DeliveryStore, HookMarks, MessageStore } from '../store/store.ts'
import { createHostRateGate, type GateClock } from '../hosts/host-rate-gate.ts'
import { reconcile, runStop, type ReconcileDeps, type ReconcileResult } from './reconcile.ts'
import { stopsRun } from '../hosts/git-host-error.ts'

/** A rate-limit hold up to this long is waited out; a longer one stops the run (docs/reconcile.md). */
export const MAX_RATE_LIMIT_WAIT_MS = 5 * 60_000

export interface RunReconcileOptions {
  settings: Pick<Settings, 'publicUrl'>
  /** The host reconciled, with its mappings and the API client the composition root built. */
  host: ReconcileHost
  store: MessageStore & DeliveryStore & HookMarks
  /** Hands a synthetic delivery to the lifecycle path; absent for a dry run. */
  apply?: ((event: PullRequestEvent) => Promise<void>) | undefined
  /**
   * Hosts with a delivery log (GitHub): ask the host to redeliver missed deliveries. Only where a server is there to receive them; without
   * one they are listed (and left for a run that has one).
   */
  redeliver: boolean
  repository?: string | undefined
  touchedSince?: number | undefined
  /** The git-host call slots (the server's own, so reconcile shares its budget). */
  limit: CallLimit
  clock?: GateClock
  maxWaitMs?: number
  onWait?: (waitMs: number, resumeAt: number) => void
  onChecked?: ReconcileDeps['onChecked']
}

export interface ReconcileReport {
  dryRun: boolean
  pullRequests: ReconcileResult
  /** Hosts with a delivery log only (GitHub). */
  deliveries?: MissedDeliveriesResult | undefined
}

const realClock: GateClock = { now: Date.now, sleep: (ms) => sleep(ms) }

export type ReconcileHost = Pick<ConnectedHost, 'id' | 'host' | 'mappings' | 'api'>

/** The host's API for reconcile, or a clear error naming the token variable. */
export function reconcileApi(own: Pick<ConnectedHost, 'host' | 'api'>): HostApi {
  const { host, api } = own
  if (api) return api
  const variable = host.variables.token
  const log = host.webhook.manualSteps ? '' : ' (and webhooks, to redeliver missed deliveries)'
  throw new PrheraldError('env_missing', `${variable} is not set: reconcile asks ${host.words.name} for the state of each pull request`, {
    fix: `set ${variable} to a token that can read pull requests${log}; docs/reconcile.md lists the scopes`,
  })
}

/** The repositories whose webhook logs are read: the one asked for, or those configured by name and those with open pull requests. */
function repositoriesToExamine(options: RunReconcileOptions, withOpen: string[]): string[] {
  if (options.repository !== undefined) return [options.repository]
  const named = listRoutes(options.host.mappings).filter((r) => r.owner !== '*' && r.source === 'repository').map((r) => `${r.owner}/${r.repo}`)
  return [...new Set([...named, ...withOpen])].sort()
}

/** One reconcile run against one configured git host: pull requests first, then missed deliveries where the host keeps a log. */
export async function runReconcile(options: RunReconcileOptions): Promise<ReconcileReport> {
  const { settings, store } = options
  const api = reconcileApi(options.host)
  const { host } = options.host
  const clock = options.clock ?? realClock
  const gate = createHostRateGate({ host: host.words.name, limit: options.limit, clock, maxWaitMs: options.maxWaitMs ?? MAX_RATE_LIMIT_WAIT_MS, onWait: options.onWait })
  const reads = api.reconcile(gate, clock)
  const common = { store, host, apply: options.apply, repository: options.repository, touchedSince: options.touchedSince, onChecked: options.onChecked }
  const dryRun = options.apply === undefined
  const missedDeliveries = reads.missedDeliveries
  if (!missedDeliveries) return { dryRun, pullRequests: await reconcile({ ...common, readPullRequest: reads.readPullRequest }) }

  // Read before the run: a pull request it finds merged is no longer open afterwards, but its repository counts.
  const withOpen = (await store.openPullRequests({ provider: host.id, touchedSince: options.touchedSince })).map((r) => r.repository)
  const pullRequests = await reconcile({ ...common, readPullRequest: reads.readPullRequest })
  if (pullRequests.stopped) return { dryRun, pullRequests }
  try {
    const deliveries = await missedDeliveries({
      store, repositories: repositoriesToExamine(options, withOpen),
      hookUrl: settings.publicUrl ? `${settings.publicUrl}/webhook/${host.id}` : undefined,
      redeliver: !dryRun && options.redeliver,
    })
    return { dryRun, pullRequests, deliveries }
  } catch (error) {
    // Only a stop (rate limit, refused token) escapes missedDeliveries: the pull requests' results still stand.
    if (!stopsRun(error)) throw error
    return { dryRun, pullRequests: { ...pullRequests, stopped: runStop(host, error) } }
  }
}
