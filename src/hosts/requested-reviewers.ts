import type { Reviewer } from '../../machines/pull-request-event.ts'
import { at, str } from '../read-fields.ts'

/**
 * Readers of the reviewers a payload asks for, one per host. Pure; entries of the wrong shape are skipped
 * rather than failing the delivery, since the rest of the event is still news.
 */

const list = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? value : undefined)

export function githubUser(user: unknown): Reviewer | undefined {
  const login = str(user, 'login')
  return login ? { type: 'user', login } : undefined
}

export function githubTeam(team: unknown): Reviewer | undefined {
  const slug = str(team, 'slug')
  return slug ? { type: 'team', slug, name: str(team, 'name') ?? slug } : undefined
}

/** `requested_reviewers` and `requested_teams` of a pull_request object; undefined when it has neither list. */
export function githubRequested(pr: unknown): Reviewer[] | undefined {
  const users = list(at(pr, 'requested_reviewers'))
  const teams = list(at(pr, 'requested_teams'))
  if (!users && !teams) return undefined
  return [...(users ?? []).flatMap((u) => githubUser(u) ?? []), ...(teams ?? []).flatMap((t) => githubTeam(t) ?? [])]
}

/** A Bitbucket account as a reviewer: shown by nickname (display name when there is none), keyed by account id. */
export function bitbucketUser(user: unknown): Reviewer | undefined {
  const login = str(user, 'nickname') ?? str(user, 'display_name') ?? str(user, 'account_id')
  if (!login) return undefined
  const accountId = str(user, 'account_id')
  return { type: 'user', login, ...(accountId ? { accountId } : {}) }
}

/** The identity of a Bitbucket account across the lists of one payload. */
const identity = (user: unknown) => str(user, 'account_id') ?? str(user, 'uuid') ?? str(user, 'nickname')

/**
 * `reviewers` of a Bitbucket pull request, less those whose participant entry shows a verdict (approved or
 * changes requested): Bitbucket keeps a reviewer in `reviewers` after they review, but they are no longer
 * waited on. Undefined when the payload has no `reviewers` list.
 */
export function bitbucketRequested(pr: unknown): Reviewer[] | undefined {
  const reviewers = list(at(pr, 'reviewers'))
  if (!reviewers) return undefined
  const done = new Set((list(at(pr, 'participants')) ?? []).flatMap((p) => {
    const verdict = at(p, 'approved') === true || str(p, 'state') === 'approved' || str(p, 'state') === 'changes_requested'
    const id = identity(at(p, 'user'))
    return verdict && id ? [id] : []
  }))
  return reviewers.flatMap((user) => {
    const id = identity(user)
    return id !== undefined && done.has(id) ? [] : bitbucketUser(user) ?? []
  })
}
