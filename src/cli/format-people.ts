import type { GitHost } from '../hosts/contract.ts'
import { formatTable } from './format-routes.ts'

/**
 * `users:` and `teams:` for `prherald-config list`: one indented row per key as prherald matches it
 * (GitHub logins and slugs lower-cased), sorted, so a reader can check who is mapped at a glance.
 */
export function formatPeople(people: { users: Record<string, string>; teams: Record<string, string>; lookupUsersByEmail: boolean }, host: GitHost): string[] {
  const { keyDescription, teamDescription, emailLookup } = host.people
  return [
    ...section('users', `${keyDescription}; unmapped people show as plain text`, people.users),
    ...(teamDescription === undefined ? [] : section('teams', teamDescription, people.teams)),
    ...(emailLookup
      ? [`slack.lookup_users_by_email: ${people.lookupUsersByEmail}${people.lookupUsersByEmail ? ` (unmapped people found by their public ${host.words.name} email)` : ''}`]
      : []),
  ]
}

function section(name: string, note: string, map: Record<string, string>): string[] {
  const entries = Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (entries.length === 0) return [`${name}: none`]
  return [`${name}: ${entries.length} mapped (${note})`, ...formatTable(entries).map((row) => `  ${row}`)]
}
