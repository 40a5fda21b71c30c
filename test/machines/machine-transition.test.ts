import { describe, expect, it } from 'vitest'
import { initialTransition, transition } from 'xstate'
import { machineTransition } from '../../machines/machine-transition.ts'
import { initialContext, pullRequestMachine, toMachineEvent } from '../../machines/pull-request.machine.ts'
import type { EventKind } from '../../machines/pull-request-event.ts'
import { prEvent } from './lifecycle-run.ts'

/**
 * Issue 25: the worker's transitions run in one reused inert scope instead of XState's `transition()`, which
 * builds an actor and a system per call. Both must give the same snapshot and the same actions, from every
 * state the machine reaches, for every kind of event.
 */
const KINDS: EventKind[] = [
  'opened', 'reopened', 'ready_for_review', 'converted_to_draft', 'edited', 'approved', 'changes_requested', 'commented',
  'review_dismissed', 'merged', 'closed', 'synchronize',
]
const outcome = ([snapshot, actions]: ReturnType<typeof machineTransition>) =>
  ({ value: snapshot.value, status: snapshot.status, context: snapshot.context, actions: actions.map((a) => ({ type: a.type, params: a.params })) })

describe('machineTransition', () => {
  it.each(KINDS)('matches XState\'s transition() for every kind after %s', (first) => {
    const start = initialTransition(pullRequestMachine, initialContext(prEvent('opened')))[0]
    const [reached] = transition(pullRequestMachine, start, toMachineEvent(prEvent(first, { state: first === 'merged' || first === 'closed' ? 'closed' : 'open' })))
    for (const kind of KINDS) {
      const event = toMachineEvent(prEvent(kind, { state: kind === 'merged' || kind === 'closed' ? 'closed' : 'open', draft: kind === 'converted_to_draft' }))
      expect(outcome(machineTransition(reached, event)), `${first} then ${kind}`).toEqual(outcome(transition(pullRequestMachine, reached, event)))
    }
  })

  it('keeps no action of one call for the next', () => {
    const start = initialTransition(pullRequestMachine, initialContext(prEvent('opened')))[0]
    const [, first] = machineTransition(start, toMachineEvent(prEvent('opened')))
    const [, second] = machineTransition(start, toMachineEvent(prEvent('approved')))
    expect(first.length).toBeGreaterThan(0)
    expect(second.map((a) => a.type)).toEqual(transition(pullRequestMachine, start, toMachineEvent(prEvent('approved')))[1].map((a) => a.type))
  })
})
