import type { ConfigDocument } from './schema.ts'
import type { ConfigProblem } from './config-problems.ts'

/**
 * Rules of `users:` and `teams:` that depend on the git host or span keys. GitHub logins and team slugs
 * ignore case, so two keys that differ only in case name one person and must not map to two Slack ids.
 * Bitbucket is keyed by Atlassian account id (docs/bitbucket.md says why); a key that cannot be one is
 * almost certainly a nickname or display name, which would silently never match.
 */
const ACCOUNT_ID = /^(?:\d+:[0-9a-f-]{8,}|[0-9a-f]{24})$/i

function sameIgnoringCase(section: 'users' | 'teams', keys: readonly string[]): ConfigProblem[] {
  const seen = new Map<string, string>()
  const problems: ConfigProblem[] = []
  for (const key of keys) {
    const first = seen.get(key.toLowerCase())
    if (first === undefined) seen.set(key.toLowerCase(), key)
    else problems.push({ key: `${section}.${key}`, path: [section, key], message: `is the same ${section === 'users' ? 'GitHub login' : 'team slug'} as ${section}.${first} (case is ignored); keep one of them` })
  }
  return problems
}

export function peopleProblems(doc: Pick<ConfigDocument, 'git_provider' | 'users' | 'teams'>): ConfigProblem[] {
  const users = Object.keys(doc.users ?? {})
  const teams = Object.keys(doc.teams ?? {})
  if (doc.git_provider === 'github') return [...sameIgnoringCase('users', users), ...sameIgnoringCase('teams', teams)]
  const problems: ConfigProblem[] = users.filter((key) => !ACCOUNT_ID.test(key)).map((key) => ({
    key: `users.${key}`,
    path: ['users', key],
    message: `"${key}" is not an Atlassian account id; Bitbucket users are keyed by account id (e.g. "557058:0b1c2d3e-…", quoted), not by nickname, which is not unique: the workspace's members list shows each one (docs/bitbucket.md#people)`,
  }))
  if (teams.length > 0) {
    problems.push({ key: 'teams', path: ['teams'], message: 'Bitbucket has no teams as reviewers; remove teams (it maps GitHub team slugs)' })
  }
  return problems
}
