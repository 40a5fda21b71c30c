import { personKey, teamKey } from '../../machines/pull-request-people.ts'
import type { People } from '../slack/person-names.ts'
import type { MessageStore } from '../store/store.ts'
import type { HostPeople } from './person-of.ts'
import { openPullRequests, type OpenPullRequest } from './pull-request-lists.ts'

/** A person's keys on one host: each account `users:` maps to them, and each team of a Slack user group they are in. */
function keysOf(own: People, slackUser: string, groups: ReadonlySet<string>): string[] {
  const accounts = Object.entries(own.users).filter(([, id]) => id === slackUser).map(([key]) => personKey(key))
  const teams = Object.entries(own.teams).filter(([, group]) => groups.has(group)).map(([slug]) => teamKey(slug))
  return [...accounts, ...teams]
}

/**
 * The open pull requests that concern a person on any host (theirs, or waiting on them or a team of theirs),
 * read through the people kept with each open message (migration 0051) rather than every open message: the
 * read /prherald mine and the Home tab make grows with the person's pull requests, not the organisation's.
 * `minePullRequests` then decides, from each pull request's own state, what waits on whom.
 */
export async function openPullRequestsOf(
  store: Pick<MessageStore, 'openMessagesOf'>, people: HostPeople, slackUser: string, groups: ReadonlySet<string>,
): Promise<OpenPullRequest[]> {
  const rows = await Promise.all([...people].map(([provider, own]) => store.openMessagesOf(provider, keysOf(own, slackUser, groups))))
  return openPullRequests(rows.flat())
}
