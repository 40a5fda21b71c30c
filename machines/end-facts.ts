import type { PullRequestEvent } from './pull-request-event.ts'

/**
 * When a pull request ended before prherald announced it. Pure helpers; the machine assigns their results.
 * Times are the hosts' own `updated_at` / `updated_on`, so they compare across deliveries whatever their order.
 */
export interface EndFacts {
  /**
   * In `ended` only: the latest time at which the pull request was seen merged or closed. An event that shows
   * it open again and was sent after this time proves a real reopening.
   */
  endedAt?: string
}

/** Milliseconds of an ISO time; NaN (which compares false) when a delivery recorded by an older release lacks it. */
const timeOf = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso))

/** An event of kind merged/closed, or one whose pull request is merged or closed, shows an end. */
const showsEnd = (event: PullRequestEvent) => event.kind === 'merged' || event.kind === 'closed' || event.pr.state !== 'open'

/**
 * The end after `event`. Only an event that shows the end moves it (a stale `opened` never does), and the
 * latest such time is kept, so that a `reopened` from between two closes cannot announce a PR closed again.
 * An unreadable time never wins over a readable one.
 */
export function recordEnd(facts: EndFacts, event: PullRequestEvent): EndFacts {
  if (!showsEnd(event)) return facts
  const before = timeOf(facts.endedAt)
  const after = timeOf(event.pr.updatedAt)
  return facts.endedAt === undefined || Number.isNaN(before) || after > before ? { endedAt: event.pr.updatedAt } : facts
}

/**
 * Whether the recorded end still stands after `event`: it does unless the event shows the pull request open
 * and the host last changed it after the end, which only a reopening can cause. A tie or an unreadable time
 * keeps it ended: silence is the safe side of a ping for a pull request that is over.
 */
export function stillEnded(facts: EndFacts, event: PullRequestEvent): boolean {
  return event.pr.state !== 'open' || !(timeOf(event.pr.updatedAt) > timeOf(facts.endedAt))
}
