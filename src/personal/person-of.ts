import type { Provider } from '../../machines/pull-request-event.ts'
import type { People } from '../slack/person-names.ts'
import type { PeopleCache } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'

/** Each configured host's people maps, by host id: a pull request is read with its own host's. */
export type HostPeople = ReadonlyMap<Provider, People>

/** The people maps as one Slack user sees them, or undefined when prherald does not know them on any host. */
export type PersonOf = (slackUser: string) => Promise<HostPeople | undefined>

/**
 * Who a Slack user is, for /prherald and the home tab: every host's `users:` first, else (with
 * slack.lookup_users_by_email) the look-up's cache read backwards, from their Slack id to the git logins it
 * matched on each host. Those logins join their host's map for this one answer, so "waiting on you" and
 * "your pull requests" find them as they find `users:`. A person mapped on two hosts sees both hosts' pull requests.
 */
export function createPersonOf(deps: { people: HostPeople; store: PeopleCache; lookupUsersByEmail: boolean }): PersonOf {
  return async (slackUser) => {
    const mapped = [...deps.people.values()].some((people) => Object.values(people.users).includes(slackUser))
    const found = deps.lookupUsersByEmail ? await deps.store.loginsOfSlackUser(slackUser) : []
    if (!mapped && found.length === 0) return undefined
    if (found.length === 0) return deps.people
    return new Map([...deps.people].map(([provider, people]) => {
      const logins = found.filter((f) => f.provider === provider).map((f) => [f.login, slackUser])
      return [provider, logins.length === 0 ? people : { ...people, users: { ...Object.fromEntries(logins), ...people.users } }]
    }))
  }
}

/** The mapped Slack user groups (every host's `teams:`) the person is in, for what waits on their teams. */
export async function groupsOf(people: HostPeople, directory: Pick<PersonDirectory, 'groupMembers'>, slackUser: string): Promise<Set<string>> {
  const groups = new Set<string>()
  const all = new Set([...people.values()].flatMap((own) => Object.values(own.teams)))
  for (const group of all) if ((await directory.groupMembers(group)).includes(slackUser)) groups.add(group)
  return groups
}
