import type { PullRequestEvent } from './pull-request-event.ts'

/**
 * Bitbucket only: the account id of each person the message names, by the name it shows (nickname or display
 * name), so the renderer can look people up in `users:`, which is keyed by account id. Pure; decide() applies
 * it to every event the machine does not ignore. GitHub needs none: the login is the key.
 */
export interface AccountFacts {
  /** Shown name -> Atlassian account id. Absent on GitHub and in lifecycles stored before it existed. */
  accountIds?: Record<string, string>
}

export function recordAccountIds(facts: AccountFacts, event: PullRequestEvent): AccountFacts {
  const seen: [string, string | undefined][] = [
    [event.pr.author, event.pr.authorAccountId],
    [event.actor.login, event.actor.accountId],
    ...(event.pr.requestedReviewers ?? []).map((r): [string, string | undefined] => (r.type === 'user' ? [r.login, r.accountId] : ['', undefined])),
  ]
  let ids = facts.accountIds
  for (const [name, id] of seen) {
    if (!name || !id || (ids && Object.hasOwn(ids, name) && ids[name] === id)) continue
    ids = { ...ids, [name]: id }
  }
  // Only the field, never `facts` itself: the caller spreads the result over the whole context.
  return ids === undefined ? {} : { accountIds: ids }
}

/** The key of `users:` for a person the message shows: the account id recorded for the name, else the name. */
export function userKeyOf(facts: AccountFacts, name: string): string {
  return facts.accountIds && Object.hasOwn(facts.accountIds, name) ? facts.accountIds[name]! : name
}
