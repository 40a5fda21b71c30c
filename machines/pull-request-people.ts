import { userKeyOf } from './account-ids.ts'
import type { PullRequestContext } from './pull-request.machine.ts'
import { waitingOn } from './review-requests.ts'

/** A git account's key among an open pull request's people, as the `users:` map names it (in lower case). */
export const personKey = (login: string): string => `user:${login.toLowerCase()}`
/** A team's key among an open pull request's people, as the `teams:` map names it (in lower case). */
export const teamKey = (slug: string): string => `team:${slug.toLowerCase()}`

/**
 * The people an open pull request concerns, for /prherald mine and the Home tab: its author, and each
 * reviewer and team it waits on, keyed as those look people up (the account id where the host gives one,
 * else the login; `mappedId` in src/config/people-map.ts also tries the key in lower case, so the keys are
 * lower case). A superset is harmless: the list built from the rows decides again who is waited on.
 */
export function peopleOf(context: PullRequestContext): string[] {
  const keys = new Set<string>()
  // GitLab's hooks may not name the author (its login is ''): nobody's key.
  if (context.author !== '') keys.add(personKey(userKeyOf(context, context.author)))
  for (const reviewer of waitingOn(context)) {
    keys.add(reviewer.type === 'user' ? personKey(reviewer.accountId ?? reviewer.login) : teamKey(reviewer.slug))
  }
  return [...keys]
}
