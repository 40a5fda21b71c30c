import { setTimeout as sleep } from 'node:timers/promises'
import { SECRET_VARIABLES } from '../config/load-config.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import type { PullRequestEvent } from '../decode/pull-request-event.ts'
import type { CallLimit } from '../effects/call-limit.ts'
import { PrheraldError } from '../errors.ts'
import { createBitbucketClient } from '../git-host/bitbucket-client.ts'
import { createGithubClient } from '../git-host/github-client.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import type { Store } from '../store/store.ts'
import { githubRequests } from './github-requests.ts'
import { createHostRateGate, type GateClock } from './host-rate-gate.ts'
import { missedDeliveries, type MissedDeliveriesResult } from './missed-deliveries.ts'
import { bitbucketPullRequests, githubPullRequests } from './read-pull-request.ts'
import { reconcile, type ReconcileResult } from './reconcile.ts'
import { runStop, stopsRun } from './run-stop.ts'

/** A rate-limit hold up to this long is waited out; a longer one stops the run (docs/reconcile.md). */
export const MAX_RATE_LIMIT_WAIT_MS = 5 * 60_000

export interface RunReconcileOptions {
  settings: Pick<Settings, 'gitProvider' | 'mappings' | 'api' | 'publicUrl'>
  access: Pick<Secrets, 'gitToken' | 'bitbucketAuthEmail'>
  store: Store
  /** Hands a synthetic delivery to the lifecycle path; absent for a dry run. */
  apply?: ((event: PullRequestEvent) => Promise<void>) | undefined
  /**
   * GitHub: ask GitHub to redeliver missed deliveries. Only where a server is there to receive them; without
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
}

export interface ReconcileReport {
  dryRun: boolean
  pullRequests: ReconcileResult
  /** GitHub only. */
  deliveries?: MissedDeliveriesResult | undefined
}

const realClock: GateClock = { now: Date.now, sleep: (ms) => sleep(ms) }

/** The token reconcile needs, or a clear error naming the variable. */
export function reconcileToken(provider: Settings['gitProvider'], access: Pick<Secrets, 'gitToken'>): string {
  if (access.gitToken) return access.gitToken
  const variable = SECRET_VARIABLES[provider].token
  const host = provider === 'github' ? 'GitHub' : 'Bitbucket'
  throw new PrheraldError('env_missing', `${variable} is not set: reconcile asks ${host} for the state of each pull request`, {
    fix: `set ${variable} to a token that can read pull requests${provider === 'github' ? ' (and webhooks, to redeliver missed deliveries)' : ''}; docs/reconcile.md lists the scopes`,
  })
}

/** The repositories whose webhook logs are read: the one asked for, or those configured by name and those with open pull requests. */
function repositoriesToExamine(options: RunReconcileOptions, withOpen: string[]): string[] {
  if (options.repository !== undefined) return [options.repository]
  const named = listRoutes(options.settings.mappings).filter((r) => r.owner !== '*' && r.source === 'repository').map((r) => `${r.owner}/${r.repo}`)
  return [...new Set([...named, ...withOpen])].sort()
}

/** One reconcile run against the configured git host: pull requests first, then (GitHub) missed deliveries. */
export async function runReconcile(options: RunReconcileOptions): Promise<ReconcileReport> {
  const { settings, store } = options
  const token = reconcileToken(settings.gitProvider, options.access)
  const clock = options.clock ?? realClock
  const host = settings.gitProvider === 'github' ? 'GitHub' : 'Bitbucket'
  const gate = createHostRateGate({ host, limit: options.limit, clock, maxWaitMs: options.maxWaitMs ?? MAX_RATE_LIMIT_WAIT_MS, onWait: options.onWait })
  const common = { store, provider: settings.gitProvider, apply: options.apply, repository: options.repository, touchedSince: options.touchedSince }
  const dryRun = options.apply === undefined

  if (settings.gitProvider === 'bitbucket') {
    const client = createBitbucketClient({ baseUrl: settings.api.bitbucket, token, authEmail: options.access.bitbucketAuthEmail })
    return { dryRun, pullRequests: await reconcile({ ...common, readPullRequest: bitbucketPullRequests(client, gate, clock) }) }
  }
  const request = githubRequests(createGithubClient({ baseUrl: settings.api.github, token }), gate, clock)
  // Read before the run: a pull request it finds merged is no longer open afterwards, but its repository counts.
  const withOpen = (await store.openPullRequests({ provider: 'github', touchedSince: options.touchedSince })).map((r) => r.repository)
  const pullRequests = await reconcile({ ...common, readPullRequest: githubPullRequests(request) })
  if (pullRequests.stopped) return { dryRun, pullRequests }
  try {
    const deliveries = await missedDeliveries({
      request, store, repositories: repositoriesToExamine(options, withOpen),
      hookUrl: settings.publicUrl ? `${settings.publicUrl}/webhook/github` : undefined,
      redeliver: !dryRun && options.redeliver,
    })
    return { dryRun, pullRequests, deliveries }
  } catch (error) {
    // Only a stop (rate limit, refused token) escapes missedDeliveries: the pull requests' results still stand.
    if (!stopsRun(error)) throw error
    return { dryRun, pullRequests: { ...pullRequests, stopped: runStop('github', error) } }
  }
}
