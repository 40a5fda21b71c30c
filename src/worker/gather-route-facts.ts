import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import { compileTitleGlob, matchesTitleGlob } from '../config/title-glob.ts'
import { isPrheraldError } from '../errors.ts'
import { MAX_CHANGED_FILES, type ChangedFile } from '../hosts/list-changed-files.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { parseCodeOwners, type CodeOwnersFile } from '../routing/code-owners.ts'
import { gateMatch } from '../routing/pull-request-filter.ts'
import { listRoutes, type Route } from '../routing/resolve-route.ts'
import type { FollowRoute, Gathered, RoutingFacts } from '../routing/route-pull-request.ts'

/** How long a CODEOWNERS read (or its absence) stands for its repository and branch before it is read again. */
export const CODE_OWNERS_TTL_MS = 60_000
/** How long a followed team's members stand before they are read again: one who left stops being followed then. */
export const TEAM_MEMBERS_TTL_MS = 15 * 60_000

export interface RouteFactsDeps {
  hosts: HostSet
  logger: Logger
  now?: () => number
}

export interface GatherRouteFacts {
  /**
   * What the routing decision needs beyond the delivery, read through the host's API only for the rules that
   * ask for it: the changed files (path and owner rules), CODEOWNERS at the target branch (owner rules), a
   * followed team's members. A pull request that uses none of them costs no call.
   */
  gather(event: PullRequestEvent, route: Route | undefined, follow: readonly FollowRoute[]): Promise<Pick<RoutingFacts, 'files' | 'codeOwners' | 'teamMembers'>>
  /** The members of the owner's teams already read (a later batch's decisions read no API); a team belongs to its organisation. */
  knownMembers(provider: string, owner: string): (slug: string) => ReadonlySet<string> | undefined
}

export function createRouteFacts(deps: RouteFactsDeps): GatherRouteFacts {
  const now = deps.now ?? Date.now
  // By provider, repository and branch: where the file was found, and when. A file the host has not got is
  // remembered as such for as long, so a repository without one costs a look per minute, not per pull request.
  const located = new Map<string, { at: number; file: Gathered<CodeOwnersFile> }>()
  // By blob: an unchanged file is parsed once, whichever branch holds it.
  const parsed = new Map<string, CodeOwnersFile>()
  const members = new Map<string, { at: number; logins: ReadonlySet<string> }>()

  // Path and owner rules need the host's token to read files. Without it those rules are inert, and start-up
  // says so once rather than on every pull request.
  for (const own of deps.hosts.values()) {
    const needFiles = listRoutes(own.mappings).filter((r) => r.paths.length > 0 || r.owners.length > 0)
    if (needFiles.length === 0 || own.api !== undefined) continue
    const variable = own.host.variables.token
    deps.logger.warn(`path rules are inert: ${variable} is not set`, {
      host: own.id, variable, repositories: needFiles.map((r) => `${r.owner}/${r.repo}`),
      fix: `set ${variable} to a token that can read pull requests; until then these repositories post to their own channel`,
    })
  }

  /** `what` names the rules that fall back: `path` (changed files) or `code owner` (CODEOWNERS). */
  const unavailable = (what: 'path' | 'code owner', error: unknown, facts: Record<string, unknown>): { unavailable: string } => {
    deps.logger.warn(`${what} routing fell back to the repository channel`, {
      ...facts, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined,
    })
    return { unavailable: `${what === 'path' ? 'the changed files' : 'CODEOWNERS'} could not be read (${isPrheraldError(error) ? error.message : 'error'})` }
  }

  async function codeOwnersAt(event: PullRequestEvent, branch: string, facts: Record<string, unknown>): Promise<Gathered<CodeOwnersFile>> {
    const key = [event.provider, event.owner, event.repo, branch].join('\n')
    const cached = located.get(key)
    if (cached && now() - cached.at < CODE_OWNERS_TTL_MS) return cached.file
    const own = deps.hosts.get(event.provider)
    if (!own?.api) return { unavailable: `${own?.host.variables.token ?? 'the host\'s token'} is not set` }
    let file: Gathered<CodeOwnersFile> = { unavailable: `no CODEOWNERS in ${own.host.codeOwners.locations.join(', ')} at ${branch}` }
    try {
      for (const path of own.host.codeOwners.locations) {
        const found = await own.api.readFile({ owner: event.owner, repo: event.repo, ref: branch, path })
        if (!found) continue
        const blobKey = [event.provider, found.sha, path].join('\n')
        const codeOwners = parsed.get(blobKey) ?? parseCodeOwners(found.text, path, own.host.codeOwners.syntax)
        parsed.set(blobKey, codeOwners)
        file = codeOwners.problems.length > 0
          ? { unavailable: `${path} line ${codeOwners.problems[0]!.line}: ${codeOwners.problems[0]!.reason}` }
          : { value: codeOwners }
        break
      }
    } catch (error) {
      return unavailable('code owner', error, facts)
    }
    if ('unavailable' in file) deps.logger.info('code owner routing has no usable CODEOWNERS', { ...facts, branch, reason: file.unavailable })
    located.set(key, { at: now(), file })
    return file
  }

  const knownMembers = (provider: string, owner: string) => (slug: string) => members.get([provider, owner.toLowerCase(), slug.toLowerCase()].join('\n'))?.logins

  async function readMembers(event: PullRequestEvent, follow: readonly FollowRoute[]): Promise<void> {
    const own = deps.hosts.get(event.provider)
    const repository = `${event.owner}/${event.repo}`
    for (const f of follow) {
      if (f.team === undefined) continue
      if (f.repositories.length > 0 && !f.repositories.some((g) => matchesTitleGlob(compileTitleGlob(g), repository))) continue
      const key = [event.provider, event.owner.toLowerCase(), f.team.toLowerCase()].join('\n')
      const cached = members.get(key)
      if (cached && now() - cached.at < TEAM_MEMBERS_TTL_MS) continue
      if (!own?.api?.teamMembers) continue
      try {
        const logins = await own.api.teamMembers(event.owner, f.team)
        members.set(key, { at: now(), logins: new Set(logins.map((l) => l.toLowerCase())) })
      } catch (error) {
        // The last list read stays in use; without one the entry is passed over (the decision says why).
        deps.logger.warn('could not read a followed team\'s members', { team: f.team, owner: event.owner, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined })
      }
    }
  }

  return {
    knownMembers,
    async gather(event, route, follow) {
      const facts = { repository: `${event.owner}/${event.repo}`, pr: event.number, delivery_id: event.deliveryId }
      await readMembers(event, follow)
      const teamMembers = knownMembers(event.provider, event.owner)
      // Files and CODEOWNERS only for an entry whose rules need them and whose gate lets the pull request in.
      if (!route || (route.paths.length === 0 && route.owners.length === 0) || gateMatch(route, event)) return { teamMembers }
      const own = deps.hosts.get(event.provider)
      if (!own?.api) return { teamMembers, files: { unavailable: `${own?.host.variables.token ?? 'the host\'s token'} is not set` } }
      let files: Gathered<readonly ChangedFile[]>
      try {
        const listed = await own.api.changedFiles({ owner: event.owner, repo: event.repo, number: event.number })
        if (listed.length >= MAX_CHANGED_FILES) deps.logger.info('path routing saw only the first changed files', { ...facts, limit: MAX_CHANGED_FILES })
        files = { value: listed }
      } catch (error) {
        return { teamMembers, files: unavailable('path', error, facts) }
      }
      if (route.owners.length === 0) return { teamMembers, files }
      const branch = event.pr.into
      const codeOwners: Gathered<CodeOwnersFile> = branch === undefined
        ? { unavailable: 'the delivery does not name the target branch' }
        : await codeOwnersAt(event, branch, facts)
      return { teamMembers, files, codeOwners }
    },
  }
}
