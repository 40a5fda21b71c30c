import { userKeyOf } from '../../machines/account-ids.ts'
import { checksVerdict } from '../../machines/check-facts.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { waitingOn } from '../../machines/review-requests.ts'
import type { HoldRole } from '../store/reminder-store.ts'

/** Someone an open pull request waits on: their key in `users:`, and why it waits on them. */
export interface Holder {
  /** The `users:` key: a login, or a Bitbucket account id. */
  key: string
  role: HoldRole
  /** For the author, what they have to do (`changes requested by erin`, `checks failing`, `approved, not merged yet`). */
  why: string
}

/**
 * Who holds an open pull request, from what its message's status line shows (render-message.ts reads the same
 * facts): each person in "Waiting on" (a team asked to review holds it through none of its members), and its
 * author while changes are requested, its checks fail, or it is approved with nobody else waited on. Pure.
 */
export function holdersOf(context: PullRequestContext): Holder[] {
  const waiting = waitingOn(context)
  const reviewers: Holder[] = waiting.flatMap((r) => (r.type === 'user' ? [{ key: r.accountId ?? r.login, role: 'review' as const, why: 'review' }] : []))
  const owed = [
    ...(context.changesRequestedBy.length > 0 ? [`changes requested by ${context.changesRequestedBy.join(', ')}`] : []),
    ...(checksVerdict(context) === 'failing' ? ['checks failing'] : []),
  ]
  if (owed.length === 0 && context.approvedBy.length > 0 && waiting.length === 0) owed.push('approved, not merged yet')
  const author: Holder[] = owed.length > 0 ? [{ key: userKeyOf(context, context.author), role: 'author', why: owed.join('; ') }] : []
  return [...reviewers, ...author]
}
