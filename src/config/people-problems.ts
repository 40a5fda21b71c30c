import { hostOf } from '../hosts/registry.ts'
import type { ConfigDocument } from './schema.ts'
import type { ConfigProblem } from './config-problems.ts'

/**
 * Rules of `users:` and `teams:` that depend on the git host or span keys. Where logins and team slugs
 * ignore case (GitHub), two keys that differ only in case name one person and must not map to two Slack
 * ids; where the host keys people by an id (Bitbucket's account ids), a key that cannot be one is refused.
 */
function sameIgnoringCase(section: 'users' | 'teams', keys: readonly string[], hostName: string): ConfigProblem[] {
  const seen = new Map<string, string>()
  const problems: ConfigProblem[] = []
  for (const key of keys) {
    const first = seen.get(key.toLowerCase())
    if (first === undefined) seen.set(key.toLowerCase(), key)
    else problems.push({ key: `${section}.${key}`, path: [section, key], message: `is the same ${section === 'users' ? `${hostName} login` : 'team slug'} as ${section}.${first} (case is ignored); keep one of them` })
  }
  return problems
}

export function peopleProblems(doc: Pick<ConfigDocument, 'git_provider' | 'users' | 'teams' | 'slack'>): ConfigProblem[] {
  const host = hostOf(doc.git_provider)
  const { people, words } = host
  const users = Object.keys(doc.users ?? {})
  const teams = Object.keys(doc.teams ?? {})
  const problems: ConfigProblem[] = people.caseInsensitive
    ? [...sameIgnoringCase('users', users, words.name), ...sameIgnoringCase('teams', teams, words.name)]
    : []
  for (const key of users) {
    const message = people.keyProblem?.(key)
    if (message !== undefined) problems.push({ key: `users.${key}`, path: ['users', key], message })
  }
  if (doc.slack?.lookup_users_by_email === true && !people.emailLookup) {
    problems.push({ key: 'slack.lookup_users_by_email', path: ['slack', 'lookup_users_by_email'], message: `does not work with ${words.name} (its API exposes no email); remove it and map people in users:` })
  }
  if (teams.length > 0 && people.teamDescription === undefined) {
    problems.push({ key: 'teams', path: ['teams'], message: `${words.name} has no teams as reviewers; remove teams` })
  }
  return problems
}
