import type { StoredLifecycle } from '../../machines/decide.ts'
import { waitingOn } from '../../machines/review-requests.ts'
import type { LogFields } from '../log/logger.ts'
import type { LookupUser } from './email-lookup.ts'
import { mappedId } from '../config/people-map.ts'
import type { People } from '../slack/person-names.ts'

/** Who is a Slack user, for the lifecycle about to be rendered. Never throws: a failed look-up is plain text. */
export type ResolvePeople = (lifecycle: StoredLifecycle, facts: LogFields) => Promise<People>

/** `users:` and `teams:` as configured; no look-ups. */
export function configuredPeople(people: People): ResolvePeople {
  return async () => people
}

/** Everyone the message names: the author, the reviewers with a verdict, the users waited on. */
export function peopleNamed(lifecycle: StoredLifecycle): string[] {
  const { context } = lifecycle
  const waiting = waitingOn(context).flatMap((r) => (r.type === 'user' ? [r.login] : []))
  return [...new Set([context.author, ...context.approvedBy, ...context.changesRequestedBy, ...waiting])]
}

/**
 * `users:` first; then, for GitHub people it does not map, the email look-up (slack.lookup_users_by_email),
 * one person after another. Bots have no profile email, so they are never looked up.
 */
export function lookedUpPeople(deps: { people: People; lookup: LookupUser }): ResolvePeople {
  return async (lifecycle) => {
    const found: Record<string, string> = {}
    for (const login of peopleNamed(lifecycle)) {
      if (login.endsWith('[bot]') || mappedId(deps.people.users, login)) continue
      const id = await deps.lookup(login)
      if (id) found[login.toLowerCase()] = id
    }
    return Object.keys(found).length === 0 ? deps.people : { ...deps.people, users: { ...found, ...deps.people.users } }
  }
}
