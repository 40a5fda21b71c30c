import type { DigestSettings } from '../config/settings.ts'
import { routeSchedule } from '../digest/digest-schedules.ts'
import type { Route } from '../routing/resolve-route.ts'
import { formatTable } from './format-routes.ts'

/**
 * The `digest` settings as they take effect, for `prherald-config list`: the global keys with defaults filled in,
 * then, when a mapping tier overrides `enabled` or `schedule`, each entry's own schedule (or `off`).
 */
export function formatDigest(digest: DigestSettings, routes: readonly Route[]): string[] {
  const overridden = routes.filter((r) => r.digest.enabled !== undefined || r.digest.schedule !== undefined)
  const rows = [
    ['digest.enabled', String(digest.enabled)],
    ['digest.schedule', digest.schedule],
    ['digest.timezone', digest.timezone],
    ['digest.holidays', digest.holidays ?? '- (weekends only)'],
    ['digest.mention', String(digest.mention)],
    ['digest.include_dependency_bots', String(digest.includeDependencyBots)],
  ]
  if (overridden.length > 0) {
    rows.push(['digest by entry', overridden.map((r) => `${r.owner}/${r.repo}: ${routeSchedule(r, digest) ?? 'off'}`).join('; ')])
  }
  return formatTable(rows)
}
