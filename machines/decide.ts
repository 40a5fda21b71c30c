import { initialTransition, transition } from 'xstate'
import type { PullRequestEvent } from '../src/decode/pull-request-event.ts'
import { initialContext, pullRequestMachine, toMachineEvent, type Intent, type PullRequestContext } from './pull-request.machine.ts'

export type LifecycleState = 'unannounced' | 'open' | 'draft' | 'merged' | 'closed'

/** What SQLite keeps of the machine: a stable state and its context, never an in-flight invocation. */
export interface StoredLifecycle {
  state: LifecycleState
  context: PullRequestContext
}

/**
 * One delivery through the machine: restores the stored snapshot (or starts a fresh one: no message
 * is stored), runs XState's pure transition, and returns the next snapshot with the intents to carry out.
 */
export function decide(stored: StoredLifecycle | undefined, event: PullRequestEvent): { next: StoredLifecycle; intents: Intent[] } {
  const snapshot = stored
    ? pullRequestMachine.resolveState({ value: stored.state, context: stored.context })
    : initialTransition(pullRequestMachine, initialContext(event))[0]
  const [next, actions] = transition(pullRequestMachine, snapshot, toMachineEvent(event))

  const intents: Intent[] = []
  for (const action of actions) {
    if (action.type === 'post' || action.type === 'update') intents.push({ type: action.type })
    if (action.type === 'ignore') intents.push({ type: 'ignore', reason: (action.params as { reason: 'draft' | 'no_stored_message' }).reason })
  }
  const before = snapshot.context.reactions
  const after = next.context.reactions
  for (const reaction of after) if (!before.includes(reaction)) intents.push({ type: 'addReaction', reaction })
  for (const reaction of before) if (!after.includes(reaction)) intents.push({ type: 'removeReaction', reaction })

  return { next: { state: next.value as LifecycleState, context: next.context }, intents }
}
