import type { Route } from '../routing/resolve-route.ts'

/** How figures name the mapping entry that routed a pull request: `owner/repo`, or the owner's catch-all `owner/*`. */
export const entryOf = (route: Pick<Route, 'owner' | 'repo' | 'source'>): string =>
  route.source === 'repository' ? `${route.owner}/${route.repo}` : `${route.owner}/*`
