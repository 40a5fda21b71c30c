import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { isSmokePullRequest } from '../hosts/smoke-pull-request.ts'
import type { MessagePlan } from './plan-changes.ts'

/** prherald-smoke always ends a run with `closed`; it is the smoke test's last delivery. */
export function isSmokeTestDone(events: readonly LifecycleEvent[]): boolean {
  return events.some((e) => e.kind === 'closed' && isSmokePullRequest(e.number, e.pr.title))
}

/**
 * The planner's step for prherald-smoke: once its last delivery arrives, every posted message of the test
 * pull request is deleted instead of brought to the new state, and nothing new is announced, so the test
 * leaves no message and (the executor forgets deleted messages' rows) no row. Pure; other plans pass through.
 */
export function planSmokeCleanup(events: readonly LifecycleEvent[], plans: MessagePlan[]): MessagePlan[] {
  if (!isSmokeTestDone(events)) return plans
  return plans.filter((p) => p.ts !== undefined).map((p) => ({ ...p, changes: [{ type: 'delete' }] }))
}
