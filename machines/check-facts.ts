import type { CheckOutcome, PullRequestEvent } from './pull-request-event.ts'

/**
 * The head commit and its check results (GitHub): what "Checks failing" / "Checks passing" and the
 * `checks_failed` reaction show. Pure helpers; the machine assigns their results. Times are the host's, so
 * they compare across deliveries whatever their order.
 */
export interface CheckFacts {
  /** The pull request's head commit, as its latest `pull_request` event named it. */
  head?: string
  /** The `updated_at` of the event that named `head`: an older event never moves it back. */
  headAt?: string
  /** The head's latest result per app (`app:<slug>`) or status context (`status:<context>`). */
  checks?: Record<string, { outcome: CheckOutcome; at: string }>
}

const timeOf = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso))

/** The head after `event`: a new head (newer than the recorded one) starts with no results. */
export function recordHead(facts: CheckFacts, event: PullRequestEvent): CheckFacts {
  if (!event.head || event.head === facts.head) return {}
  if (facts.headAt !== undefined && timeOf(event.pr.updatedAt) < timeOf(facts.headAt)) return {}
  return { head: event.head, headAt: event.pr.updatedAt, checks: {} }
}

/**
 * Whether `event` is a check result for the current head (a result for an older commit changes nothing). A
 * result on the merge ref names the pull request, not a commit: it counts (a newer one of its source replaces it).
 */
export const isForHead = (facts: CheckFacts, event: PullRequestEvent): boolean =>
  event.check !== undefined && (event.check.onMergeRef === true || (facts.head !== undefined && event.check.sha === facts.head))

/** The results after `event`'s: it replaces its source's earlier result, unless that one is newer. */
export function recordCheck(facts: CheckFacts, event: PullRequestEvent): CheckFacts {
  const check = event.check
  if (!check) return {}
  const earlier = facts.checks?.[check.source]
  if (earlier && timeOf(earlier.at) > timeOf(check.at)) return {}
  return { checks: { ...facts.checks, [check.source]: { outcome: check.outcome, at: check.at } } }
}

/** `failing` when any result failed, `passing` when every one passed, otherwise nothing to show. */
export function checksVerdict(facts: CheckFacts): 'failing' | 'passing' | undefined {
  const outcomes = Object.values(facts.checks ?? {}).map((c) => c.outcome)
  if (outcomes.includes('failed')) return 'failing'
  if (outcomes.length > 0 && outcomes.every((o) => o === 'passed')) return 'passing'
  return undefined
}
