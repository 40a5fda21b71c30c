import type { Route } from '../routing/resolve-route.ts'

/**
 * `slack.thread_updates` as it takes effect, for `prherald-config list`: the global value, and the mapping
 * entries whose tier (their own or their owner's `"*"`) says otherwise.
 */
export function formatThreads(global: boolean, routes: readonly Route[]): string[] {
  const differing = routes.filter((r) => r.threadUpdates !== undefined && r.threadUpdates !== global).map((r) => `${r.owner}/${r.repo}`)
  const except = differing.length > 0 ? ` (${String(!global)} for ${differing.join(', ')})` : ''
  return [`slack.thread_updates: ${String(global)}${except}`]
}
