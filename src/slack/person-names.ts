import { userKeyOf } from '../../machines/account-ids.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import type { Reviewer } from '../../machines/pull-request-event.ts'
import { mappedId, type PeopleMap } from '../config/people-map.ts'

/**
 * Who the message names, as Slack should show them. Pure. `users` is `users:` from the config, plus any
 * people found by email (src/people/email-lookup.ts), keyed as people-map.ts keys them.
 */
export interface People {
  users: PeopleMap
  teams: PeopleMap
}

/** A Slack mention token when the person or team is mapped; otherwise the plain name, still to be escaped. */
export type Named = { token: string } | { plain: string }

/**
 * A person by the name the message shows: the GitHub login, or a Bitbucket nickname whose account id the
 * lifecycle recorded (or a reviewer's own, when the list carried it).
 */
export function personName(context: PullRequestContext, people: People | undefined, login: string, accountId?: string): Named {
  const id = people && mappedId(people.users, accountId ?? userKeyOf(context, login))
  return id ? { token: `<@${id}>` } : { plain: login }
}

/** A GitHub team: its user group when mapped, else `owner/slug`, the way GitHub writes a team. */
export function teamName(context: PullRequestContext, people: People | undefined, slug: string): Named {
  const id = people && mappedId(people.teams, slug)
  return id ? { token: `<!subteam^${id}>` } : { plain: `${context.owner}/${slug}` }
}

export function reviewerName(context: PullRequestContext, people: People | undefined, reviewer: Reviewer): Named {
  return reviewer.type === 'team' ? teamName(context, people, reviewer.slug) : personName(context, people, reviewer.login, reviewer.accountId)
}
