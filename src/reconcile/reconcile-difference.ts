import type { StoredLifecycle } from '../../machines/decide.ts'
import { splitRepository, type EventKind, type PullRequestEvent, type PullRequestFacts } from '../../machines/pull-request-event.ts'
import type { PullRequestRef } from '../store/store.ts'

/** What reconcile found different between the message and the pull request, as its output line names it. */
export type ReconcileChange = 'merged' | 'closed' | 'draft' | 'ready' | 'title'

export interface Difference {
  changes: ReconcileChange[]
  /** The delivery the host would have sent for it; the machine takes it like any other. */
  kind: EventKind
}

/**
 * The one event that brings a message shown as open or draft to the pull request's real state, or undefined
 * when the message is already right. Pure. One event suffices: every event refreshes the title, and the
 * open and draft states follow the draft flag of whatever event carries it.
 */
export function differenceOf(shown: StoredLifecycle, real: PullRequestFacts): Difference | undefined {
  const title: ReconcileChange[] = real.title !== shown.context.title ? ['title'] : []
  if (real.state === 'merged') return { changes: ['merged', ...title], kind: 'merged' }
  if (real.state === 'closed') return { changes: ['closed', ...title], kind: 'closed' }
  if (real.draft && shown.state === 'open') return { changes: ['draft', ...title], kind: 'converted_to_draft' }
  if (!real.draft && shown.state === 'draft') return { changes: ['ready', ...title], kind: 'ready_for_review' }
  if (title.length > 0) return { changes: title, kind: 'edited' }
  return undefined
}

/** Who a synthetic event names as its actor; no review is ever synthesised, so it shows nowhere. */
export const RECONCILE_ACTOR = { login: 'prherald-reconcile', isBot: true } as const

/** The synthetic delivery for a difference, carrying the facts the host answered. */
export function reconcileEvent(ref: PullRequestRef, difference: Difference, facts: PullRequestFacts, deliveryId: string): PullRequestEvent {
  return {
    provider: ref.provider, deliveryId, ...splitRepository(ref.repository), number: ref.prNumber,
    kind: difference.kind, pr: facts, actor: { ...RECONCILE_ACTOR },
  }
}
