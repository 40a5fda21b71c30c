import { reactionNames } from '../config/reactions.ts'
import type { ResolvePeople } from '../people/resolve-people.ts'
import type { RenderOptions } from '../slack/render-review.ts'
import { hasMessage, type MessageRecord } from '../store/store.ts'
import type { BatchContext, LostLockChange } from './run-batch.ts'
import { planMessage } from './plan-changes.ts'
import { createPlanRunner, type PlanRunnerDeps } from './run-plan.ts'

export interface RepaintDeps extends PlanRunnerDeps {
  render?: RenderOptions
  people?: ResolvePeople
}

/** What the message may carry: the emoji its row records, with the lost reaction changes as if they landed. */
function mayCarry(recorded: readonly string[], lost: readonly LostLockChange[]): string[] {
  const carried = new Set(recorded)
  for (const { change } of lost) {
    if (change.type === 'addReaction') carried.add(change.name)
    else if (change.type === 'removeReaction') carried.delete(change.name)
  }
  return [...carried]
}

/**
 * After a batch lost its pull request's lock with a change of a message still on its way (chaos run, #924),
 * and once that change has settled: run under the lock again, this brings each message it touched back to
 * the state the database holds. The message is taken to show what the lost batch sent (its last update's
 * state, its reactions added or removed), and planned from there to the stored state as any batch is: a
 * chat.update only when the render differs, reactions by difference. A re-render from the store, no delivery.
 */
export function createRepaint(deps: RepaintDeps) {
  const runPlan = createPlanRunner(deps)
  return async function repaint(lost: readonly LostLockChange[], batch: BatchContext): Promise<void> {
    const ref = lost[0]?.ref
    if (!ref) return
    const placed: MessageRecord[] = []
    for (const row of (await deps.store.findMessages(ref)).filter(hasMessage)) {
      const changes = lost.filter((c) => c.channel === row.channel)
      const last = changes.at(-1)
      if (!last) continue
      const stored = row.lifecycle
      const facts = { repository: ref.repository, pr: ref.prNumber, repaint: 'lock_lost' }
      const people = deps.people ? await deps.people(stored, facts) : undefined
      const sent = changes.filter((c) => c.change.type === 'update').at(-1)?.next ?? stored
      const recorded = row.reactions ?? reactionNames(last.reactions, stored.context.reactions)
      const plan = planMessage({ channel: row.channel, mentions: row.mentions, ts: row.ts, shown: sent, reactions: mayCarry(recorded, changes) },
        stored, last.reactions, people, deps.render)
      if (plan.changes.length === 0) continue
      const message = await runPlan(plan, {
        ref, facts, next: stored, reactions: last.reactions, ...(deps.render ? { render: deps.render } : {}), ...(people ? { people } : {}),
        beforePost: { state: row.state, lifecycle: row.lifecycle, lastDeliveryId: row.lastDeliveryId }, deliveryId: row.lastDeliveryId ?? '',
      }, batch)
      if (message) placed.push({ ...row, ...message })
    }
    // The rows keep their state; a message posted again (someone deleted it) gets its new ts saved.
    if (placed.length > 0) await deps.store.commitOutcome({ provider: ref.provider, deliveryIds: [], messages: placed })
  }
}
