import type { PullRequestEvent } from './pull-request-event.ts'
import { userKeyOf } from './account-ids.ts'
import type { LifecycleState, StoredLifecycle } from './decide.ts'
import type { FoldStep } from './fold-events.ts'

/** What a thread reply tells: the events that change what the message says, one reply each. */
export type ThreadEventKind =
  | 'approved'
  | 'changes_requested'
  | 'review_dismissed'
  | 'approval_removed'
  | 'changes_request_removed'
  | 'merged'
  | 'closed'
  | 'reopened'
  | 'back_to_draft'

export interface ThreadEvent {
  kind: ThreadEventKind
  /** Who did it (for a dismissal: the reviewer whose verdict went). */
  actor: string
  /** The pull request's author as `users:` keys them (GitHub login, Bitbucket account id): a change request mentions them when mapped. */
  author: string
  deliveryId: string
  /** The delivery and the event: the same on every replay of the delivery, so a reply is posted once. */
  replyKey: string
}

const SHOWN: ReadonlySet<LifecycleState> = new Set(['open', 'draft', 'merged', 'closed'])
const shows = (lifecycle: StoredLifecycle | undefined) => lifecycle !== undefined && SHOWN.has(lifecycle.state)

const gained = (before: string[], after: string[], login: string) => !before.includes(login) && after.includes(login)
const lost = (before: string[], after: string[], login: string) => before.includes(login) && !after.includes(login)

/** What one step changed that a reader of the thread should hear about, if anything. Pure. */
function changeOf(event: PullRequestEvent, before: StoredLifecycle, after: StoredLifecycle): ThreadEventKind | undefined {
  const from = before.state
  const to = after.state
  if (to === 'merged' && from !== 'merged') return 'merged'
  if (to === 'closed' && from !== 'closed') return 'closed'
  if (from === 'closed' && (to === 'open' || to === 'draft')) return 'reopened'
  if (from === 'open' && to === 'draft') return 'back_to_draft'
  const login = event.actor.login
  const b = before.context
  const a = after.context
  switch (event.kind) {
    case 'approved':
      return gained(b.approvedBy, a.approvedBy, login) ? 'approved' : undefined
    case 'changes_requested':
      return gained(b.changesRequestedBy, a.changesRequestedBy, login) ? 'changes_requested' : undefined
    case 'review_dismissed':
    case 'approval_removed':
    case 'changes_request_removed':
      return lost(b.approvedBy, a.approvedBy, login) || lost(b.changesRequestedBy, a.changesRequestedBy, login) ? event.kind : undefined
    default:
      return undefined
  }
}

/**
 * The thread events of a folded batch, in arrival order: one for every event that changed what the message
 * says, whether or not its delivery was folded with others, and none for an event that changed nothing (a
 * second approval by the same reviewer, a late `closed` after a merge). Events up to and including the one
 * that announces the pull request get none: the message itself tells them. Repeated deliveries never reach the
 * fold (the intake drops a known delivery id), and a replay of the same delivery gives the same reply keys.
 */
export function threadEvents(stored: StoredLifecycle | undefined, steps: readonly FoldStep[]): ThreadEvent[] {
  const events: ThreadEvent[] = []
  let shown = shows(stored)
  for (const step of steps) {
    if (step.ignored || !step.after) continue
    // A "Start review" click shows on the message itself and is no event of the pull request's: no reply.
    const { event } = step
    const kind = shown && step.before && event.kind !== 'review_click' ? changeOf(event, step.before, step.after) : undefined
    if (kind && event.kind !== 'review_click') {
      const author = userKeyOf(step.after.context, step.after.context.author)
      events.push({ kind, actor: event.actor.login, author, deliveryId: event.deliveryId, replyKey: `${event.deliveryId}:${kind}` })
    }
    shown ||= shows(step.after)
  }
  return events
}
