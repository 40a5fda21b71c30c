import type { PullRequestEvent, Reviewer } from './pull-request-event.ts'

/**
 * Who the pull request is waiting on: the reviewers and teams asked to review who have not reviewed and
 * were not taken off. Pure; decide() applies it to every event the machine does not ignore.
 *
 * Deliveries arrive late, out of order and repeated, so the result must not depend on their order. Every
 * fact is evidence about one reviewer at the host's time of the delivery (`updated_at` / `updated_on`),
 * with a strength: being absent from a full list (weakest), being asked (on a list, or `review_requested`),
 * being done (`review_request_removed`, or their own review). A reviewer is waited on when the newest,
 * then strongest, evidence about them says asked. Taking the maximum is commutative, associative and
 * idempotent, so any order of the same deliveries ends in the same set.
 *
 * - The payload's full list (GitHub `requested_reviewers` + `requested_teams`; Bitbucket `reviewers` less
 *   those with a verdict) speaks about everyone: the newest list is kept, and lists sent at the same time
 *   are united (each is evidence of asking; their absences lose to that).
 * - An event about one reviewer is kept as a mark while it is not older than the list; an older one can no
 *   longer win and is dropped, which also keeps the state small.
 * - Two opposite events about one reviewer at the same second cannot be ordered; done wins, the silent side.
 */
export interface ReviewRequests {
  /** The host's time of the newest full list seen; absent until one is. */
  listedAt?: string
  /** That list (the union of the lists sent at that time). */
  listed: Reviewer[]
  marks: RequestMark[]
}

export interface RequestMark {
  reviewer: Reviewer
  at: string
  /** True: asked to review. False: done (reviewed, or no longer asked). */
  asked: boolean
}

export interface WaitingFacts {
  /** Absent in lifecycles stored before review requests were tracked: nobody is waited on. */
  reviewRequests?: ReviewRequests
}

/** GitHub logins and slugs ignore case; a Bitbucket person is the account id when the payload has one. */
export function reviewerKey(reviewer: Reviewer): string {
  if (reviewer.type === 'team') return `team:${reviewer.slug.toLowerCase()}`
  return reviewer.accountId ? `account:${reviewer.accountId}` : `user:${reviewer.login.toLowerCase()}`
}

/** Milliseconds of a host time; an unreadable one is older than every readable one. */
const timeOf = (iso: string | undefined) => {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso)
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms
}

const EMPTY: ReviewRequests = { listed: [], marks: [] }

function union(a: readonly Reviewer[], b: readonly Reviewer[]): Reviewer[] {
  const keys = new Set(a.map(reviewerKey))
  return [...a, ...b.filter((r) => !keys.has(reviewerKey(r)))]
}

/** The single reviewer an event is explicitly about, and whether it asks them or ends their request. */
function markOf(event: PullRequestEvent): RequestMark | undefined {
  const at = event.pr.updatedAt
  if (event.kind === 'review_requested' && event.reviewer) return { reviewer: event.reviewer, at, asked: true }
  if (event.kind === 'review_request_removed' && event.reviewer) return { reviewer: event.reviewer, at, asked: false }
  // A verdict ends its author's request on both hosts; on GitHub a submitted review in state `commented` does
  // too, while a conversation or line comment does not (submittedReview tells them apart).
  const reviewed = event.kind === 'approved' || event.kind === 'changes_requested' || (event.kind === 'commented' && event.submittedReview === true)
  if (!reviewed) return undefined
  const { login, accountId } = event.actor
  return { reviewer: { type: 'user', login, ...(accountId ? { accountId } : {}) }, at, asked: false }
}

/** The stronger of two marks about one reviewer: the newer, then done over asked. */
function stronger(a: RequestMark, b: RequestMark): RequestMark {
  const [ta, tb] = [timeOf(a.at), timeOf(b.at)]
  if (ta !== tb) return ta > tb ? a : b
  return a.asked ? b : a
}

export function recordRequests(facts: WaitingFacts, event: PullRequestEvent): Required<WaitingFacts> {
  const before = facts.reviewRequests ?? EMPTY
  let { listedAt, listed } = before
  const list = event.pr.requestedReviewers
  if (list !== undefined) {
    const [now, was] = [timeOf(event.pr.updatedAt), timeOf(listedAt)]
    if (listedAt === undefined || now > was) [listedAt, listed] = [event.pr.updatedAt, list]
    else if (now === was) listed = union(listed, list)
  }
  const marks = [...before.marks]
  const mark = markOf(event)
  if (mark) {
    const i = marks.findIndex((m) => reviewerKey(m.reviewer) === reviewerKey(mark.reviewer))
    if (i < 0) marks.push(mark)
    else marks[i] = stronger(marks[i]!, mark)
  }
  const floor = timeOf(listedAt)
  const kept = listedAt === undefined ? marks : marks.filter((m) => timeOf(m.at) >= floor)
  return { reviewRequests: { ...(listedAt === undefined ? {} : { listedAt }), listed, marks: kept } }
}

/** The reviewers and teams waited on, in the order the host listed them, then those asked since. */
export function waitingOn(facts: WaitingFacts): Reviewer[] {
  const { listedAt, listed, marks } = facts.reviewRequests ?? EMPTY
  const onList = new Set(listed.map(reviewerKey))
  const listTime = timeOf(listedAt)
  const waiting = (reviewer: Reviewer): boolean => {
    const mark = marks.find((m) => reviewerKey(m.reviewer) === reviewerKey(reviewer))
    // The list's evidence: asked at listTime when on it, not asked when absent; none before a list is seen.
    const listed = listedAt === undefined ? undefined : { at: listTime, rank: onList.has(reviewerKey(reviewer)) ? 1 : 0 }
    const marked = mark && { at: timeOf(mark.at), rank: mark.asked ? 1 : 2 }
    const best = [listed, marked].filter((e) => e !== undefined).reduce((a, b) => (b.at > a.at || (b.at === a.at && b.rank > a.rank) ? b : a))
    return best.rank === 1
  }
  const candidates = union(listed, marks.map((m) => m.reviewer))
  return candidates.filter(waiting)
}
