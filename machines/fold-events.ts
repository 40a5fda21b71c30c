import type { PullRequestEvent } from './pull-request-event.ts'
import { isReviewClick, type MachineEvent } from './lifecycle-event.ts'
import { decide, storesWithoutMessage, type StoredLifecycle } from './decide.ts'
import { recordEnd } from './end-facts.ts'
import type { IgnoreIntentReason } from './pull-request.machine.ts'

/** One delivery's pass through the machine, in the order the deliveries arrived. */
export interface FoldStep {
  event: MachineEvent
  /** The lifecycle before this event (undefined: nothing stored yet). */
  before: StoredLifecycle | undefined
  /**
   * The lifecycle after it; the same as `before` for an ignored event, except one that records that the pull
   * request ended before it was announced (state `ended`, see decide's storesWithoutMessage).
   */
  after: StoredLifecycle | undefined
  /** Set when the machine ignored the event (it then changes nothing). */
  ignored?: IgnoreIntentReason
}

export interface Folded {
  /**
   * The lifecycle after every event; undefined when every event was ignored and nothing was stored. When no
   * event changed anything but `next.state` is `ended`, `next` is stored in a row without a Slack message.
   */
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
 * reactions (added then removed is nothing). A first announcement therefore already shows the latest state,
 * and a pull request that ends within the batch that would announce it is not announced at all, unless a
 * message for it is already in a channel (`messageShown`: a post of unknown outcome found and adopted): then
 * the end must reach that message.
 */
export function foldEvents(stored: StoredLifecycle | undefined, events: readonly MachineEvent[], options: { messageShown?: boolean } = {}): Folded {
  let current = stored
  let changed = false
  let announcedBy: PullRequestEvent | undefined
  const steps: FoldStep[] = []
  for (const event of events) {
    if (isReviewClick(event) && !current) {
      // A click needs the message it was made on; cleanup may have forgotten it since.
      steps.push({ event, before: undefined, after: undefined, ignored: 'no_stored_message' })
      continue
    }
    const decision = isReviewClick(event) ? decide(current!, event) : decide(current, event)
    const { next, intents } = decision
    const ignore = intents.find((i) => i.type === 'ignore')
    if (ignore) {
      const after = storesWithoutMessage(decision) ? next : current
      steps.push({ event, before: current, after, ignored: ignore.reason })
      current = after
      continue
    }
    if (!isReviewClick(event) && intents.some((i) => i.type === 'post')) announcedBy ??= event
    steps.push({ event, before: current, after: next })
    current = next
    changed = true
  }
  if (announcedBy && !options.messageShown && current && (current.state === 'merged' || current.state === 'closed')) return endedUnannounced(current, steps)
  return { next: current, changed, announcedBy, steps }
}

/**
 * The batch would announce a pull request that it also ends (say `opened` and `merged` queued together while
 * prherald was busy or down): by the time anything reaches Slack the pull request is over, so it is not
 * announced at all. Like a `merged` that arrives first, the end is kept in a row without a message, and
 * every delivery of the batch is logged as ignored.
 */
function endedUnannounced(last: StoredLifecycle, steps: FoldStep[]): Folded {
  // A click never ends a pull request, so the step that did is a delivery.
  const endedBy = [...steps].reverse().find((s) => s.after?.state === 'merged' || s.after?.state === 'closed')
  const next: StoredLifecycle = { state: 'ended', context: { ...last.context, reactions: [], ...recordEnd({}, endedBy!.event as PullRequestEvent) } }
  return {
    next,
    changed: false,
    announcedBy: undefined,
    steps: steps.map((s) => ({ ...s, after: s.ignored ? s.after : next, ignored: s.ignored ?? 'ended_before_announced' })),
  }
}
