import type { StoredLifecycle } from '../../machines/decide.ts'
import type { ReactionSettings } from '../config/settings.ts'
import { heldLock } from '../slack/lock-scope.ts'
import type { PullRequestRef } from '../store/store.ts'
import type { SlackChange } from './plan-changes.ts'

/**
 * A change of a message that settled after its batch's pull-request lock was gone. It may have been on its
 * way to Slack while another replica took the lock and wrote a later state, and landed after that write
 * (Slack has no conditional update): the message may be a step behind what the database holds.
 */
export interface LostLockChange {
  ref: PullRequestRef
  channel: string
  /** What the batch was bringing the message to (an update may have left it showing this). */
  next: StoredLifecycle
  /** The repository's reactions, after inheritance, as the batch planned with them. */
  reactions: ReactionSettings
  change: SlackChange
}

const settledAfterLoss = new WeakMap<AbortSignal, LostLockChange[]>()

/**
 * Sends one change of a message for the calling batch. If the batch's lock was lost by the time the change
 * settled (answered, failed or timed out), the change is remembered against that lock. A change the pacer
 * refused because the lock was already gone is remembered too: it is not known to have stayed unsent
 * (an earlier try of it may have been carried out), and a repaint that finds nothing to do costs nothing.
 */
export async function sendChange<T>(change: LostLockChange, send: () => Promise<T>): Promise<T> {
  const held = heldLock()
  try {
    return await send()
  } finally {
    if (held?.aborted) settledAfterLoss.set(held, [...(settledAfterLoss.get(held) ?? []), change])
  }
}

/** The changes of a batch that settled after its lock `lost` was gone (none while it holds). */
export const changesAfterLoss = (lost: AbortSignal): readonly LostLockChange[] => settledAfterLoss.get(lost) ?? []
