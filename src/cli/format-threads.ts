import type { ReviewRequestNotify } from '../config/settings.ts'
import type { Route } from '../routing/resolve-route.ts'

/**
 * `slack.thread_updates` and `notify.review_requests` as they take effect, for `prherald-config list`: the global value, and the mapping
 * entries whose tier (their own or their owner's `"*"`) says otherwise.
 */
export function formatThreads(global: boolean, routes: readonly Route[], reviewRequests: ReviewRequestNotify): string[] {
  const differing = routes.filter((r) => r.threadUpdates !== undefined && r.threadUpdates !== global).map((r) => `${r.owner}/${r.repo}`)
  const except = differing.length > 0 ? ` (${String(!global)} for ${differing.join(', ')})` : ''
  const pings = reviewRequests === 'thread' ? ' (a newly requested reviewer mapped in users: or teams: is pinged in the thread)' : ' (requested reviewers are not pinged)'
  return [`slack.thread_updates: ${String(global)}${except}`, `notify.review_requests: ${reviewRequests}${pings}`]
}
