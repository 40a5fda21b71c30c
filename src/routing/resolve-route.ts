import type { MappingEntry, Mappings } from '../config/schema.ts'

export interface PathRoute {
  prefix: string
  channel: string
  mentions: string[]
}

/** Where a repository's pull requests go, after inheritance from its owner's `"*"` entry. */
export interface Route {
  owner: string
  repo: string
  channel: string
  mentions: string[]
  paths: PathRoute[]
  /** Which entry matched: the repository's own, or the owner's catch-all. */
  source: 'repository' | 'wildcard'
}

function findKey<T>(map: Record<string, T>, wanted: string): T | undefined {
  if (Object.hasOwn(map, wanted)) return map[wanted]
  // GitHub and Bitbucket treat owner and repository names case-insensitively, so the config does too.
  const lower = wanted.toLowerCase()
  const key = Object.keys(map).find((k) => k.toLowerCase() === lower)
  return key === undefined ? undefined : map[key]
}

export function resolveEntry(star: MappingEntry | undefined, entry: MappingEntry | undefined): Omit<Route, 'owner' | 'repo' | 'source'> | undefined {
  const channel = entry?.channel ?? star?.channel
  if (!channel) return undefined
  return {
    channel,
    // An absent key inherits; `mentions: []` is a deliberate "mention nobody".
    mentions: entry?.mentions ?? star?.mentions ?? [],
    paths: Object.entries(entry?.paths ?? {}).map(([prefix, rule]) => ({
      prefix,
      channel: rule.channel,
      mentions: rule.mentions ?? [],
    })),
  }
}

export function resolveRoute(mappings: Mappings, owner: string, repo: string): Route | undefined {
  const repos = findKey(mappings, owner)
  if (!repos) return undefined
  const entry = repo === '*' ? undefined : findKey(repos, repo)
  const resolved = resolveEntry(repos['*'], entry)
  return resolved && { owner, repo, ...resolved, source: entry ? 'repository' : 'wildcard' }
}

/** Every configured entry, resolved; the owner's `"*"` is listed with repo `*`. */
export function listRoutes(mappings: Mappings): Route[] {
  const routes: Route[] = []
  for (const [owner, repos] of Object.entries(mappings)) {
    for (const [repo, entry] of Object.entries(repos)) {
      const resolved = resolveEntry(repos['*'], repo === '*' ? undefined : entry)
      if (resolved) routes.push({ owner, repo, ...resolved, source: repo === '*' ? 'wildcard' : 'repository' })
    }
  }
  return routes
}
