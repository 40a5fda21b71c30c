import { createHash } from 'node:crypto'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { Route } from '../routing/resolve-route.ts'

/** JSON with object keys sorted at every level, so that equal values always hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * What an entry's validation depends on. Mentions are left out: no check looks at them. Whether the git-host
 * token is set is in: without it the webhook check only SKIPs, so setting the token must trigger a real check.
 * The token itself never is, not even hashed.
 */
export function validationInput(provider: Provider, route: Route, gitTokenSet: boolean): Record<string, unknown> {
  return {
    provider,
    owner: route.owner,
    repo: route.repo,
    // One channel is hashed as before, so upgrading does not re-validate every existing entry.
    ...(route.targets.length === 1 ? { channel: route.targets[0]!.channel } : { channels: route.targets.map((t) => t.channel) }),
    path_channels: [...new Set(route.paths.map((p) => p.channel))].sort(),
    git_token: gitTokenSet ? 'set' : 'unset',
  }
}

export function entryHash(provider: Provider, route: Route, gitTokenSet: boolean): string {
  return createHash('sha256').update(canonicalJson(validationInput(provider, route, gitTokenSet))).digest('hex')
}

export function entryKey(route: { owner: string; repo: string }): string {
  return `${route.owner}/${route.repo}`
}
