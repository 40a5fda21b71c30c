import type { People } from '../slack/person-names.ts'
import type { Store } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'

/** The people map as one Slack user sees it, or undefined when prherald does not know them. */
export type PersonOf = (slackUser: string) => Promise<People | undefined>

/**
 * Who a Slack user is, for /prherald and the home tab: `users:` first, else (with slack.lookup_users_by_email)
 * the look-up's cache read backwards, from their Slack id to the git logins it matched. Those logins join the
 * map for this one answer, so "waiting on you" and "your pull requests" find them as they find `users:`.
 */
export function createPersonOf(deps: { people: People; store: Pick<Store, 'loginsOfSlackUser'>; lookupUsersByEmail: boolean }): PersonOf {
  return async (slackUser) => {
    if (Object.values(deps.people.users).includes(slackUser)) return deps.people
    if (!deps.lookupUsersByEmail) return undefined
    const logins = await deps.store.loginsOfSlackUser(slackUser)
    if (logins.length === 0) return undefined
    return { ...deps.people, users: { ...Object.fromEntries(logins.map((login) => [login, slackUser])), ...deps.people.users } }
  }
}

/** The mapped Slack user groups (`teams:`) the person is in, for what waits on their teams. */
export async function groupsOf(people: People, directory: Pick<PersonDirectory, 'groupMembers'>, slackUser: string): Promise<Set<string>> {
  const groups = new Set<string>()
  for (const group of new Set(Object.values(people.teams))) if ((await directory.groupMembers(group)).includes(slackUser)) groups.add(group)
  return groups
}
