import type { DigestSettings } from '../config/settings.ts'
import { listHostRoutes, resolveHostRoute, type HostMappings, type Route } from '../routing/resolve-route.ts'
import type { OpenMessage } from '../store/store.ts'
import type { DigestCandidate } from './build-digest.ts'

/** A candidate with the mentions its message carries (the parent's mentions with digest.mention). */
export interface ScheduledCandidate extends DigestCandidate {
  mentions: string[]
}

/** The schedule a route's repositories are digested on, after the tiers; undefined when the digest is off for them. */
export function routeSchedule(route: Pick<Route, 'digest'>, digest: Pick<DigestSettings, 'enabled' | 'schedule'>): string | undefined {
  return (route.digest.enabled ?? digest.enabled) ? route.digest.schedule ?? digest.schedule : undefined
}

/** Every distinct schedule some mapping entry is digested on: one scheduled job each. */
export function digestSchedules(mappings: HostMappings, digest: Pick<DigestSettings, 'enabled' | 'schedule'>): string[] {
  return [...new Set(listHostRoutes(mappings).map((route) => routeSchedule(route, digest)).filter((s) => s !== undefined))]
}

/**
 * Sorts open messages by the schedule of their repository's route, as it is configured now: a repository
 * whose digest is off, or that no mapping serves any more, is in none. Dependency bots' pull requests are
 * left out unless digest.include_dependency_bots. Pure.
 */
export function candidatesBySchedule(rows: readonly OpenMessage[], mappings: HostMappings, digest: DigestSettings): Map<string, ScheduledCandidate[]> {
  const bySchedule = new Map<string, ScheduledCandidate[]>()
  for (const row of rows) {
    const { lifecycle } = row
    if (lifecycle.context.dependencyBump && !digest.includeDependencyBots) continue
    const route = resolveHostRoute(mappings, lifecycle.context.provider, lifecycle.context.owner, lifecycle.context.repo)
    const schedule = route && routeSchedule(route, digest)
    if (schedule === undefined) continue
    const candidate = { channel: row.channel, lifecycle, activityAt: row.activityAt, mentions: row.mentions }
    const list = bySchedule.get(schedule)
    if (list) list.push(candidate)
    else bySchedule.set(schedule, [candidate])
  }
  return bySchedule
}
