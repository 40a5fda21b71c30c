import type { AssignTier, DigestTier, MappingEntry, Mappings, ReactionsConfig, TalkBackTier } from '../config/schema.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import type { MessageTarget } from './message-targets.ts'
import { mergeReactionTiers } from '../config/reactions.ts'
import { layFilter, type PullRequestFilter } from './pull-request-filter.ts'

/** A code owner of `owners:` and the channel its files go to. */
export interface OwnerRoute {
  /** As CODEOWNERS writes it, lower-cased: `@acme/web`, `@alice`, `jane@example.com`. */
  owner: string
  channel: string
  mentions: string[]
}

export interface PathRoute {
  prefix: string
  channel: string
  mentions: string[]
}

/** Where a repository's pull requests go, after inheritance from its owner's `"*"` entry. */
export interface Route {
  owner: string
  repo: string
  /** The repository's channels (`channel`, or each of `channels`), each with the mentions its message carries. */
  targets: MessageTarget[]
  paths: PathRoute[]
  /** The mapping tiers' `slack.reactions` (repository over the owner's `"*"`), still to be laid over the global ones. */
  reactions: ReactionsConfig | undefined
  /** The mapping tiers' `slack.thread_updates` (repository over the owner's `"*"`); undefined: the global setting. */
  threadUpdates: boolean | undefined
  /** The mapping tiers' `slack.talk_back`, in order (the owner's `"*"`, then the repository's): laid over the global one by `layTalkBack`. */
  talkBack: Array<TalkBackTier | undefined>
  /** The mapping tiers' `digest` overrides (repository over the owner's `"*"`), still to be laid over the global `digest`. */
  digest: DigestTier
  /** The mapping tiers' `ignore` (each key of the repository's replaces the owner's `"*"`'s). */
  ignore: PullRequestFilter
  /** The mapping tiers' `only`, inherited the same way. */
  only: PullRequestFilter
  /** The mapping tiers' `owners` (the repository's replaces the owner's `"*"`'s): code owner, lower-cased -> channel. */
  owners: OwnerRoute[]
  /** The mapping tiers' `assign` (each key of the repository's replaces the owner's `"*"`'s), defaults applied; undefined: nobody is assigned. */
  assign?: AssignSettings | undefined
  /** Which entry matched: the repository's own, or the owner's catch-all. */
  source: 'repository' | 'wildcard'
}

/** `assign:` after inheritance and defaults (docs/review-loop.md, "Assigning reviewers"). */
export interface AssignSettings {
  /** The key of `teams:` whose members are asked. */
  team: string
  count: number
  strategy: NonNullable<AssignTier['strategy']>
  skipAway: boolean
}

function layAssign(star: AssignTier | undefined, entry: AssignTier | undefined): AssignSettings | undefined {
  const laid = star || entry ? { ...star, ...entry } : undefined
  if (!laid?.team) return undefined
  return { team: laid.team, count: laid.count ?? 1, strategy: laid.strategy ?? 'round_robin', skipAway: laid.skip_away ?? true }
}

function findKey<T>(map: Record<string, T>, wanted: string): T | undefined {
  if (Object.hasOwn(map, wanted)) return map[wanted]
  // GitHub, GitLab and Bitbucket treat owner and repository names case-insensitively, so the config does too.
  const lower = wanted.toLowerCase()
  const key = Object.keys(map).find((k) => k.toLowerCase() === lower)
  return key === undefined ? undefined : map[key]
}

/** An entry's own channels, if it sets `channel` or `channels`; bare IDs carry `mentions`. */
function entryTargets(entry: MappingEntry | undefined, mentions: string[]): MessageTarget[] | undefined {
  if (entry?.channel) return [{ channel: entry.channel, mentions }]
  return entry?.channels?.map((c) => (typeof c === 'string' ? { channel: c, mentions } : { channel: c.id, mentions: c.mentions ?? mentions }))
}

export function resolveEntry(star: MappingEntry | undefined, entry: MappingEntry | undefined): Omit<Route, 'owner' | 'repo' | 'source'> | undefined {
  // An absent key inherits; `mentions: []` is a deliberate "mention nobody".
  const mentions = entry?.mentions ?? star?.mentions ?? []
  // `channel` and `channels` are one setting: whichever the entry has replaces what the "*" entry has.
  const targets = entryTargets(entry, mentions) ?? entryTargets(star, mentions)
  if (!targets || targets.length === 0) return undefined
  return {
    targets,
    paths: Object.entries(entry?.paths ?? {}).map(([prefix, rule]) => ({
      prefix,
      channel: rule.channel,
      mentions: rule.mentions ?? [],
    })),
    reactions: mergeReactionTiers(star?.slack?.reactions, entry?.slack?.reactions),
    threadUpdates: entry?.slack?.thread_updates ?? star?.slack?.thread_updates,
    talkBack: [star?.slack?.talk_back, entry?.slack?.talk_back],
    ignore: layFilter(star?.ignore, entry?.ignore),
    only: layFilter(star?.only, entry?.only),
    assign: layAssign(star?.assign, entry?.assign),
    owners: Object.entries(entry?.owners ?? star?.owners ?? {}).map(([owner, rule]) => ({
      owner: owner.toLowerCase(), channel: rule.channel, mentions: rule.mentions ?? [],
    })),
    digest: {
      enabled: entry?.digest?.enabled ?? star?.digest?.enabled,
      schedule: entry?.digest?.schedule ?? star?.digest?.schedule,
    },
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

/** Every channel a route can post in: its own, its path rules' and its code owners', each once. */
export function routeChannels(route: Pick<Route, 'targets' | 'paths' | 'owners'>): string[] {
  return [...new Set([...route.targets.map((t) => t.channel), ...route.paths.map((p) => p.channel), ...route.owners.map((o) => o.channel)])]
}

/** Every configured host's mappings, by host id: a pull request is routed by its own host's (`"*"` per host). */
export type HostMappings = ReadonlyMap<Provider, Mappings>

export function hostMappings(hosts: readonly { id: Provider; mappings: Mappings }[]): HostMappings {
  return new Map(hosts.map((h) => [h.id, h.mappings]))
}

/** The route of a pull request on `provider`; undefined for a host no longer configured (its rows stay, unlisted). */
export function resolveHostRoute(mappings: HostMappings, provider: Provider, owner: string, repo: string): Route | undefined {
  const own = mappings.get(provider)
  return own === undefined ? undefined : resolveRoute(own, owner, repo)
}

/** Every host's entries, each with its host. */
export function listHostRoutes(mappings: HostMappings): Array<Route & { provider: Provider }> {
  return [...mappings].flatMap(([provider, own]) => listRoutes(own).map((route) => ({ ...route, provider })))
}
