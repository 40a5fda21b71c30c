import type { PullRequestFacts } from '../../machines/pull-request-event.ts'
import type { FollowEntry } from '../config/schema.ts'
import { compileTitleGlob, matchesTitleGlob } from '../config/title-glob.ts'
import type { ChangedFile } from '../hosts/list-changed-files.ts'
import { ownersOf, type CodeOwnersFile } from './code-owners.ts'
import type { MessageTarget } from './message-targets.ts'
import { gateMatch, layFilter, type FilterMatch, type PullRequestGate } from './pull-request-filter.ts'
import type { Route } from './resolve-route.ts'
import { matchRule } from './route-by-paths.ts'

/**
 * The one decision of where a pull request goes (docs/routing.md): from its facts and the host's config, the
 * channels it is announced in, each with the rules that sent it, and the rules that did not. Pure: the batch
 * gathers the facts (changed files, CODEOWNERS, team members, through the host's API and cached) and calls it
 * once; `prherald-config explain` calls it with facts from the command line.
 */

/** A `follow` entry of the host, resolved. */
export interface FollowRoute {
  /** Where it is written, for reasons and log lines: `follow[0]`. */
  rule: string
  channel: string
  mentions: string[]
  authors: readonly string[]
  team: string | undefined
  repositories: readonly string[]
  gate: PullRequestGate
}

export function followRoutes(entries: readonly FollowEntry[] | undefined): FollowRoute[] {
  return (entries ?? []).map((entry, i) => ({
    rule: `follow[${i}]`,
    channel: entry.channel,
    mentions: entry.mentions ?? [],
    authors: entry.authors ?? [],
    team: entry.team,
    repositories: entry.repositories ?? [],
    gate: { only: layFilter(undefined, entry.only), ignore: layFilter(undefined, entry.ignore) },
  }))
}

/** A fact the batch read, or why it could not. */
export type Gathered<T> = { value: T } | { unavailable: string }

export interface RoutingFacts {
  owner: string
  repo: string
  pr: Pick<PullRequestFacts, 'title' | 'author' | 'authorAccountId' | 'labels' | 'labelsUnknown' | 'into' | 'from' | 'requestedReviewers'>
  /** Teams asked to review besides `pr.requestedReviewers` (a review_requested delivery's team), by slug. */
  requestedTeams?: readonly string[]
  /** The changed files; undefined: not read for this decision (a later event: paths and owners stay as chosen). */
  files?: Gathered<readonly ChangedFile[]>
  /** The CODEOWNERS file at the target branch; undefined: not read. */
  codeOwners?: Gathered<CodeOwnersFile>
  /** A team's members' logins (lower-cased); undefined: not read yet. */
  teamMembers?: (slug: string) => ReadonlySet<string> | undefined
}

export type ReasonKind = 'repository' | 'path' | 'owner' | 'requested_team' | 'follow'

export interface TargetReason {
  kind: ReasonKind
  /** The config key that sent it: `mappings.acme.api`, `paths."services/billing"`, `owners."@acme/web"`, `follow[0]`. */
  rule: string
  /** Why, in words: `owns services/web/app.ts`. */
  detail: string
}

export interface RoutedTarget extends MessageTarget {
  reasons: TargetReason[]
}

export interface RouteDecision {
  targets: RoutedTarget[]
  /** Rules that did not send the pull request, and why. */
  passed: Array<{ rule: string; why: string }>
  /** The mapping entry's `only`/`ignore` kept it out of the entry's channels. */
  gated?: FilterMatch
  /** A rule needs a fact not read yet (a followed team's members): the intake leaves it to the batch. */
  undecided: boolean
  /** Why the entry's own channels stand in for its path and owner rules (files or CODEOWNERS unreadable). */
  fallback?: string
}

const GATE_WORDS: Record<FilterMatch, string> = {
  label: 'ignore.labels matches a label', labels_unknown: 'the delivery does not say which labels it has',
  title: 'ignore.title matches the title', author: 'ignore.authors names the author', into: 'ignore.into matches the target branch',
  from: 'ignore.from matches the source branch', branch_unknown: 'the delivery does not name its branches',
  not_labels: 'it has none of only.labels', not_title: 'its title matches no only.title', not_authors: 'only.authors does not name the author',
  not_into: 'its target branch matches no only.into', not_from: 'its source branch matches no only.from',
}

export function gateWords(match: FilterMatch): string {
  return GATE_WORDS[match]
}

const teamOwner = (owner: string, slug: string) => `@${owner}/${slug}`.toLowerCase()

function requestedTeams(facts: RoutingFacts): string[] {
  const listed = (facts.pr.requestedReviewers ?? []).flatMap((r) => (r.type === 'team' ? [r.slug] : []))
  return [...new Set([...listed, ...(facts.requestedTeams ?? [])])]
}

/** The entry's own channels, paths and owners: what its changed files call for. */
function contentTargets(route: Route, rule: string, facts: RoutingFacts, decision: RouteDecision): RoutedTarget[] {
  const own = (detail: string): RoutedTarget[] => route.targets.map((t) => ({ channel: t.channel, mentions: [...t.mentions], reasons: [{ kind: 'repository', rule, detail }] }))
  if (route.paths.length === 0 && route.owners.length === 0) return own('the repository\'s channel')
  if (facts.files === undefined) return own('changed files not read: path and owner rules not applied')
  if ('unavailable' in facts.files) {
    decision.fallback = `changed files could not be listed: ${facts.files.unavailable}`
    return own(decision.fallback)
  }
  const files = facts.files.value
  const out: RoutedTarget[] = []
  for (const path of route.paths) {
    const matched = files.flatMap((f) => [f.path, f.previousPath]).filter((p): p is string => p !== undefined && matchRule(p, route.paths) === path)
    if (matched.length > 0) out.push({ channel: path.channel, mentions: [...path.mentions], reasons: [{ kind: 'path', rule: `paths.${JSON.stringify(path.prefix)}`, detail: `changes ${matched[0]}${matched.length > 1 ? ` and ${matched.length - 1} more` : ''}` }] })
    else decision.passed.push({ rule: `paths.${JSON.stringify(path.prefix)}`, why: 'no changed file is under it' })
  }
  if (route.owners.length > 0) {
    const codeOwners = facts.codeOwners
    if (codeOwners === undefined || 'unavailable' in codeOwners) {
      const why = codeOwners === undefined ? 'CODEOWNERS not read' : codeOwners.unavailable
      decision.fallback ??= `code owners unknown: ${why}`
      for (const o of route.owners) decision.passed.push({ rule: `owners.${JSON.stringify(o.owner)}`, why })
    } else {
      const owned = new Map<string, string[]>()
      for (const file of files) {
        for (const path of [file.path, file.previousPath]) {
          if (path === undefined) continue
          for (const owner of ownersOf(codeOwners.value, path)) owned.set(owner, [...(owned.get(owner) ?? []), path])
        }
      }
      for (const o of route.owners) {
        const paths = owned.get(o.owner)
        const ownerRule = `owners.${JSON.stringify(o.owner)}`
        if (paths) out.push({ channel: o.channel, mentions: [...o.mentions], reasons: [{ kind: 'owner', rule: ownerRule, detail: `owns ${paths[0]}${paths.length > 1 ? ` and ${paths.length - 1} more` : ''} (${codeOwners.value.path})` }] })
        else decision.passed.push({ rule: ownerRule, why: `owns no changed file in ${codeOwners.value.path}` })
      }
    }
  }
  // Path and owner rules replace the entry's channels; when none of them claims a file, the entry's own stand.
  return out.length > 0 ? out : own(decision.fallback ?? 'no changed file matches a path rule or a listed owner')
}

function followTargets(follow: readonly FollowRoute[], facts: RoutingFacts, decision: RouteDecision): RoutedTarget[] {
  const repository = `${facts.owner}/${facts.repo}`
  const author = facts.pr.author.toLowerCase()
  const accountId = facts.pr.authorAccountId?.toLowerCase()
  return follow.flatMap((f): RoutedTarget[] => {
    if (f.repositories.length > 0 && !f.repositories.some((g) => matchesTitleGlob(compileTitleGlob(g), repository))) {
      decision.passed.push({ rule: f.rule, why: `repositories does not match ${repository}` })
      return []
    }
    let who: string
    if (f.team !== undefined) {
      const members = facts.teamMembers?.(f.team)
      if (members === undefined) {
        decision.undecided = true
        decision.passed.push({ rule: f.rule, why: `the members of team ${f.team} are not read yet` })
        return []
      }
      if (!members.has(author)) {
        decision.passed.push({ rule: f.rule, why: `${facts.pr.author || 'the author'} is not a member of team ${f.team}` })
        return []
      }
      who = `${facts.pr.author} is a member of team ${f.team}`
    } else {
      const authors = new Set(f.authors.map((a) => a.toLowerCase()))
      if (!authors.has(author) && (accountId === undefined || !authors.has(accountId))) {
        decision.passed.push({ rule: f.rule, why: `authors does not name ${facts.pr.author || 'the author'}` })
        return []
      }
      who = `follows ${facts.pr.author}`
    }
    const gated = gateMatch(f.gate, facts)
    if (gated) {
      decision.passed.push({ rule: f.rule, why: gateWords(gated) })
      return []
    }
    return [{ channel: f.channel, mentions: [...f.mentions], reasons: [{ kind: 'follow', rule: f.rule, detail: who }] }]
  })
}

/** One message per channel: the first rule's place in the order, every rule's mentions and reasons. */
function merge(targets: readonly RoutedTarget[]): RoutedTarget[] {
  const byChannel = new Map<string, RoutedTarget>()
  for (const t of targets) {
    const seen = byChannel.get(t.channel)
    if (!seen) byChannel.set(t.channel, { channel: t.channel, mentions: [...t.mentions], reasons: [...t.reasons] })
    else {
      for (const m of t.mentions) if (!seen.mentions.includes(m)) seen.mentions.push(m)
      seen.reasons.push(...t.reasons)
    }
  }
  return [...byChannel.values()]
}

export function routePullRequest(config: { route: Route | undefined; follow: readonly FollowRoute[] }, facts: RoutingFacts): RouteDecision {
  const decision: RouteDecision = { targets: [], passed: [], undecided: false }
  const { route } = config
  const targets: RoutedTarget[] = []
  if (route === undefined) {
    decision.passed.push({ rule: `mappings.${facts.owner}`, why: `no mapping entry for ${facts.owner}/${facts.repo}` })
  } else {
    const rule = `mappings.${route.owner}.${route.source === 'wildcard' ? '"*"' : route.repo}`
    const gated = gateMatch(route, facts)
    if (gated) {
      decision.gated = gated
      decision.passed.push({ rule, why: gateWords(gated) })
    } else {
      targets.push(...contentTargets(route, rule, facts, decision))
      const teams = requestedTeams(facts)
      for (const o of route.owners) {
        const slug = teams.find((t) => teamOwner(facts.owner, t) === o.owner)
        if (slug !== undefined) targets.push({ channel: o.channel, mentions: [...o.mentions], reasons: [{ kind: 'requested_team', rule: `owners.${JSON.stringify(o.owner)}`, detail: `review requested from team ${slug}` }] })
      }
    }
  }
  targets.push(...followTargets(config.follow, facts, decision))
  decision.targets = merge(targets)
  return decision
}
