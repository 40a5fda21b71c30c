import type { PullRequestEvent } from '../src/decode/pull-request-event.ts'
import { decide, type StoredLifecycle } from './decide.ts'
import type { IgnoreIntentReason } from './pull-request.machine.ts'

/** One delivery's pass through the machine, in the order the deliveries arrived. */
export interface FoldStep {
  event: PullRequestEvent
  /** The lifecycle before this event (undefined: nothing stored yet). */
  before: StoredLifecycle | undefined
  /** The lifecycle after it; the same as `before` for an ignored event. */
  after: StoredLifecycle | undefined
  /** Set when the machine ignored the event (it then changes nothing). */
  ignored?: IgnoreIntentReason
}

export interface Folded {
  /** The lifecycle after every event; undefined when every event was ignored and nothing was stored. */
  next: StoredLifecycle | undefined
  /** True when at least one event was not ignored, so the messages and rows are brought to `next`. */
  changed: boolean
  /** The event whose transition announces the pull request (it chooses the channels), if one does. */
  announcedBy: PullRequestEvent | undefined
  steps: FoldStep[]
}

/**
 * Runs a pull request's queued deliveries through the machine in arrival order, before any Slack call, so
 * that the effects carry out only the end result: one render of the final state and the net change of
 * reactions (added then removed is nothing). A first announcement therefore already shows the latest state.
 */
export function foldEvents(stored: StoredLifecycle | undefined, events: readonly PullRequestEvent[]): Folded {
  let current = stored
  let changed = false
  let announcedBy: PullRequestEvent | undefined
  const steps: FoldStep[] = []
  for (const event of events) {
    const { next, intents } = decide(current, event)
    const ignore = intents.find((i) => i.type === 'ignore')
    if (ignore) {
      steps.push({ event, before: current, after: current, ignored: ignore.reason })
      continue
    }
    if (intents.some((i) => i.type === 'post')) announcedBy ??= event
    steps.push({ event, before: current, after: next })
    current = next
    changed = true
  }
  return { next: current, changed, announcedBy, steps }
}
