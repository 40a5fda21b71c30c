import { hostOf } from '../hosts/registry.ts'
import type { ConfigDocument } from './schema.ts'
import type { ConfigProblem } from './config-problems.ts'
import { blockKey, type HostBlock } from './host-blocks.ts'

/**
 * Rules of `users:` and `teams:` that depend on the git host or span keys. Where logins and team slugs
 * ignore case (GitHub), two keys that differ only in case name one person and must not map to two Slack
 * ids; where the host keys people by an id (Bitbucket's account ids), a key that cannot be one is refused.
 */
function sameIgnoringCase(block: HostBlock, section: 'users' | 'teams', keys: readonly string[], hostName: string): ConfigProblem[] {
  const seen = new Map<string, string>()
  const problems: ConfigProblem[] = []
  for (const key of keys) {
    const first = seen.get(key.toLowerCase())
    if (first === undefined) seen.set(key.toLowerCase(), key)
    else problems.push({ ...blockKey(block, section, key), message: `is the same ${section === 'users' ? `${hostName} login` : 'team slug'} as ${blockKey(block, section, first).key} (case is ignored); keep one of them` })
  }
  return problems
}

/** The people rules of one host's block; keys are named where the block sits (`hosts.gitlab.users.…`). */
export function peopleProblems(block: HostBlock): ConfigProblem[] {
  const { people, words } = hostOf(block.id)
  const users = Object.keys(block.users ?? {})
  const teams = Object.keys(block.teams ?? {})
  const problems: ConfigProblem[] = people.caseInsensitive
    ? [...sameIgnoringCase(block, 'users', users, words.name), ...sameIgnoringCase(block, 'teams', teams, words.name)]
    : []
  for (const key of users) {
    const message = people.keyProblem?.(key)
    if (message !== undefined) problems.push({ ...blockKey(block, 'users', key), message })
  }
  return [...problems, ...assignProblems(block, teams, people.caseInsensitive)]
}

/** `assign.team` of every mapping entry must be a key of the host's `teams:` (its Slack user group, or the host's own team). */
function assignProblems(block: HostBlock, teams: readonly string[], caseInsensitive: boolean): ConfigProblem[] {
  const known = new Set(teams.map((t) => (caseInsensitive ? t.toLowerCase() : t)))
  return Object.entries(block.mappings).flatMap(([owner, repos]) => Object.entries(repos).flatMap(([repo, entry]) => {
    const team = entry.assign?.team
    if (team === undefined || known.has(caseInsensitive ? team.toLowerCase() : team)) return []
    const teamsKey = blockKey(block, 'teams').key
    return [{ ...blockKey(block, 'mappings', owner, repo, 'assign', 'team'), message: `"${team}" is not in ${teamsKey}; add it there with its Slack user group (${teamsKey}: { ${team}: S0123ABCD }) or name a team listed there` }]
  }))
}

/** slack.lookup_users_by_email is shared: refused only when no configured host's API gives an email. */
export function emailLookupProblems(doc: Pick<ConfigDocument, 'slack'>, blocks: readonly HostBlock[]): ConfigProblem[] {
  if (doc.slack?.lookup_users_by_email !== true || blocks.length === 0 || blocks.some((b) => hostOf(b.id).people.emailLookup)) return []
  const names = blocks.map((b) => hostOf(b.id).words.name).join(', ')
  return [{ key: 'slack.lookup_users_by_email', path: ['slack', 'lookup_users_by_email'], message: `does not work with ${names} (its API exposes no email); remove it and map people in users:` }]
}
