import type { Reviewer } from './pull-request-event.ts'
import { userKeyOf } from './account-ids.ts'
import { checksVerdict } from './check-facts.ts'
import type { LifecycleState } from './decide.ts'
import type { FoldStep } from './fold-events.ts'
import { reviewerKey, waitingOn } from './review-requests.ts'

/** What a direct message tells one person (docs/notifications.md). */
export type DirectMessageKind = 'review_requested' | 'approved' | 'changes_requested' | 'commented' | 'checks_failed' | 'merged'

export interface DirectMessageEvent {
  kind: DirectMessageKind
  /** Who hears of it: a requested reviewer (a user, or a team's members), or the pull request's author. */
  to: Reviewer | { type: 'author'; key: string }
  /** Who did it, as the message shows them, and as `users:` keys them (nobody is told of their own doing). */
  actor: string
  actorKey: string
  /** The delivery, what happened and to whom: the same on every replay, so a message is queued once. */
  key: string
}

const LIVE: ReadonlySet<LifecycleState> = new Set(['open', 'draft'])
const gained = (before: readonly string[], after: readonly string[], login: string) => !before.includes(login) && after.includes(login)

/**
 * The personal news in a folded batch, in arrival order. Pure. Reviewers newly waited on (at the announcement
 * too: the channel message does not notify a person the way a direct message does); and for the author, a new
 * approval or change request, a comment by someone else (not a bot), checks turning to failing, the merge.
 * Ignored steps and "Start review" clicks tell nobody anything.
 */
export function directMessageEvents(steps: readonly FoldStep[]): DirectMessageEvent[] {
  const events: DirectMessageEvent[] = []
  for (const step of steps) {
    const { event, before, after } = step
    if (step.ignored || !after || event.kind === 'review_click' || !(LIVE.has(after.state) || after.state === 'merged')) continue
    const actor = event.actor.login
    const actorKey = event.actor.accountId ?? actor
    const base = `${event.deliveryId}:dm`
    if (LIVE.has(after.state)) {
      const waited = new Set(before && LIVE.has(before.state) ? waitingOn(before.context).map(reviewerKey) : [])
      for (const reviewer of waitingOn(after.context)) {
        const key = reviewerKey(reviewer)
        if (!waited.has(key)) events.push({ kind: 'review_requested', to: reviewer, actor, actorKey, key: `${base}:review_requested:${key}` })
      }
    }
    const author = userKeyOf(after.context, after.context.author)
    const toAuthor = (kind: DirectMessageKind) => events.push({ kind, to: { type: 'author', key: author }, actor, actorKey, key: `${base}:${kind}` })
    if (actor.toLowerCase() === after.context.author.toLowerCase()) continue
    const b = before?.context
    const a = after.context
    if (after.state === 'merged') {
      if (before?.state !== 'merged') toAuthor('merged')
      continue
    }
    if (event.kind === 'approved' && gained(b?.approvedBy ?? [], a.approvedBy, actor)) toAuthor('approved')
    else if (event.kind === 'changes_requested' && gained(b?.changesRequestedBy ?? [], a.changesRequestedBy, actor)) toAuthor('changes_requested')
    else if (event.kind === 'commented' && !event.actor.isBot) toAuthor('commented')
    else if (event.kind === 'check_completed' && checksVerdict(a) === 'failing' && (b === undefined || checksVerdict(b) !== 'failing')) toAuthor('checks_failed')
  }
  return events
}
