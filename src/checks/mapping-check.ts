import { CHANNEL_ID, type Mappings } from '../config/schema.ts'
import { resolveRoute, routeChannels, type Route } from '../routing/resolve-route.ts'
import type { CheckResult } from './check-result.ts'

/**
 * mapping: the repository resolves to a channel (after the owner's `"*"` inheritance) and every channel ID
 * it can post to is well formed. Pure: the config loader already enforces most of this, but `validate` and
 * `doctor` also take repositories named on the command line, which may match no entry at all.
 */
export function mappingCheck(mappings: Mappings, owner: string, repo: string): { result: CheckResult; route: Route | undefined } {
  const target = `${owner}/${repo}`
  const route = resolveRoute(mappings, owner, repo)
  const fail = (reason: string, fix: string) => ({ route, result: { name: 'mapping', target, status: 'FAIL', reason, fix } satisfies CheckResult })
  if (!route) {
    return fail(`no mapping entry for ${target} and no "*" entry for ${owner}`, `add mappings.${owner}.${repo}.channel (or mappings.${owner}."*".channel) to the config file`)
  }
  const bad = routeChannels(route).filter((c) => !CHANNEL_ID.test(c))
  if (bad.length > 0) {
    return fail(`malformed channel ID ${bad.join(', ')}`, 'use the channel ID (C…, G… or D…), not its #name: in Slack, open the channel, click its name, copy the ID at the bottom')
  }
  const origin = route.source === 'wildcard' && repo !== '*' ? ` (from ${owner}/*)` : ''
  const paths = route.paths.length === 0 ? '' : `, ${route.paths.length} path rule${route.paths.length === 1 ? '' : 's'}`
  const mentionCount = new Set(route.targets.flatMap((t) => t.mentions)).size
  const mentions = `${mentionCount} mention${mentionCount === 1 ? '' : 's'}`
  const channels = route.targets.length === 1 ? `channel ${route.targets[0]!.channel}` : `channels ${route.targets.map((t) => t.channel).join(', ')}`
  return { route, result: { name: 'mapping', target, status: 'OK', reason: `${channels}${origin}, ${mentions}${paths}` } }
}
