import { initialTransition } from 'xstate'
import { machineTransition } from './machine-transition.ts'
import type { PullRequestEvent } from './pull-request-event.ts'
import type { ReviewClick } from './lifecycle-event.ts'
import { recordAccountIds } from './account-ids.ts'
import { recordRequests } from './review-requests.ts'
import {
  initialContext, pullRequestMachine, toMachineEvent, type IgnoreIntentReason, type Intent, type PullRequestContext,
} from './pull-request.machine.ts'

/** transition() types returned params loosely; the machine's `ignore` action declares exactly this. */
type IgnoreParams = { reason: IgnoreIntentReason }

export type LifecycleState = 'unannounced' | 'ended' | 'open' | 'draft' | 'merged' | 'closed'

/** What SQLite keeps of the machine: a stable state and its context, never an in-flight invocation. */
export interface StoredLifecycle {
  state: LifecycleState
  context: PullRequestContext
}

export interface Decision {
  next: StoredLifecycle
  intents: Intent[]
}

/**
 * One delivery through the machine: restores the stored snapshot (or starts a fresh one: no message
 * is stored), runs XState's pure transition, and returns the next snapshot with at most one intent: a post
 * (announce the pull request) or an ignore. Updates and reactions are not intents: the planner compares the
 * renders and emoji of the shown and the next snapshot (worker/plan-changes.ts).
 *
 * What the caller stores, by the shape of the result:
 * - no ignore: `next`, beside each message (the post's `ts` included);
 * - a single ignore and `next.state === 'ended'` (see storesWithoutMessage): `next`, in a row without a
 *   Slack message. The pull request ended before it was announced, and that must outlive this delivery, or a
 *   late `opened` would announce it as new. No Slack call;
 * - any other ignore: nothing (`next` is then the stored snapshot, or an unannounced one when none is).
 */
export function decide(stored: StoredLifecycle, event: PullRequestEvent | ReviewClick): Decision
export function decide(stored: StoredLifecycle | undefined, event: PullRequestEvent): Decision
export function decide(stored: StoredLifecycle | undefined, event: PullRequestEvent | ReviewClick): Decision {
  // A click always has a stored lifecycle (fold-events.ts ignores one that has none): only a delivery starts one.
  const snapshot = stored
    ? pullRequestMachine.resolveState({ value: stored.state, context: stored.context })
    : initialTransition(pullRequestMachine, initialContext(event as PullRequestEvent))[0]
  const [next, actions] = machineTransition(snapshot, toMachineEvent(event))

  const ignore = actions.find((a) => a.type === 'ignore')
  if (ignore) {
    const intents: Intent[] = [{ type: 'ignore', reason: (ignore.params as IgnoreParams).reason }]
    if (next.value === 'ended') return { next: { state: 'ended', context: next.context }, intents }
    return { next: stored ?? { state: 'unannounced', context: snapshot.context }, intents }
  }

  const intents: Intent[] = actions.some((a) => a.type === 'post') ? [{ type: 'post' }] : []

  return { next: { state: next.value as LifecycleState, context: event.kind === 'review_click' ? next.context : withPeople(next.context, event) }, intents }
}

/**
 * Who is waited on and the Bitbucket account ids, from every event the machine acts on, whichever transition
 * it took: a Bitbucket `updated` that changes only the reviewers moves the machine nowhere, and the full
 * list rides on most events. The planner renders `next`, so a change here alone updates the message. A
 * "Start review" click carries neither, and leaves them as they are.
 */
function withPeople(context: PullRequestContext, event: PullRequestEvent): PullRequestContext {
  return { ...context, ...recordRequests(context, event), ...recordAccountIds(context, event) }
}

/** The second case above: store `decision.next` in a row that has no Slack message, and call Slack for nothing. */
export function storesWithoutMessage(decision: Decision): boolean {
  return decision.next.state === 'ended' && decision.intents.length === 1 && decision.intents[0]!.type === 'ignore'
}
