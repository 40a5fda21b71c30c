import { deleteSlice, statements } from './dialect.ts'
import type { Param, Step, StoreDriver } from './store-driver.ts'
import type { PullRequestRef } from './store.ts'

/** One review by someone other than the author: who, and when the host says it happened (unix ms). */
export interface ReviewMark {
  login: string
  at: number
}

/**
 * A pull request's turnaround row (migrations/0045): the times its figures are computed from
 * (src/insights/turnaround-figures.ts), kept `insights.keep_days` after its last change. Times are unix ms,
 * null until the moment happened (or was seen).
 */
export interface TurnaroundRecord extends PullRequestRef {
  /** The mapping entry that routed it (`owner/repo` or `owner/*`); null when none did. */
  entry: string | null
  author: string
  openedAt: number | null
  /** When it became ready for review: opened as no draft, or marked ready; null for a draft (or not seen). */
  readyAt: number | null
  /** The first review by someone other than the author (an approval, changes requested, a submitted review). */
  firstReviewAt: number | null
  firstApprovalAt: number | null
  mergedAt: number | null
  closedAt: number | null
  /** Who merged it (the host's login), when it was merged. */
  mergedBy: string | null
  reviews: ReviewMark[]
  /** The team slugs asked to review it. */
  teams: string[]
}

/** The turnaround part of the store (src/insights/). */
export interface TurnaroundStore {
  /** The pull request's row, if it has one. */
  turnaroundOf(pr: PullRequestRef): Promise<TurnaroundRecord | undefined>
  /** The rows a batch changed at or after `since` (unix ms): every pull request with a moment since then. */
  turnaroundSince(since: number): Promise<TurnaroundRecord[]>
}

/** The turnaround rows' statements (exported for the index test, test/store/query-plans.test.ts). */
export const turnaroundQueries = statements({
  find: 'SELECT * FROM pull_request_turnaround WHERE provider = ? AND repository = ? AND pr_number = ?',
  // The batch holds the pull request's lock: it read the row, folded its deliveries in, and writes it whole.
  save: `INSERT INTO pull_request_turnaround (provider, repository, pr_number, entry, author, opened_at, ready_at, first_review_at,
      first_approval_at, merged_at, closed_at, merged_by, reviews, teams, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (provider, repository, pr_number) DO UPDATE SET
      entry = excluded.entry, author = excluded.author, opened_at = excluded.opened_at, ready_at = excluded.ready_at,
      first_review_at = excluded.first_review_at, first_approval_at = excluded.first_approval_at, merged_at = excluded.merged_at,
      closed_at = excluded.closed_at, merged_by = excluded.merged_by, reviews = excluded.reviews, teams = excluded.teams,
      updated_at = excluded.updated_at`,
  since: `SELECT * FROM pull_request_turnaround WHERE updated_at >= ? ORDER BY repository{bytewise}, pr_number`,
  deleteBefore: deleteSlice('pull_request_turnaround', 'updated_at < ?'),
})

/** Cleanup's statement (create-store.ts forgetBefore), a slice at a time, with the `insights.keep_days` cutoff. */
export const deleteTurnaroundBefore = turnaroundQueries.deleteBefore

/** The batch's write of the row, in the transaction of its commit (create-store.ts commitOutcome). */
export const saveTurnaroundStep = (t: TurnaroundRecord, at: number): Step => [turnaroundQueries.save, [
  t.provider, t.repository, t.prNumber, t.entry, t.author, t.openedAt, t.readyAt, t.firstReviewAt, t.firstApprovalAt, t.mergedAt,
  t.closedAt, t.mergedBy, JSON.stringify(t.reviews.map((r) => [r.login, r.at])), JSON.stringify(t.teams), at,
]]

interface TurnaroundRow {
  provider: string
  repository: string
  pr_number: number | string
  entry: string | null
  author: string
  opened_at: number | string | null
  ready_at: number | string | null
  first_review_at: number | string | null
  first_approval_at: number | string | null
  merged_at: number | string | null
  closed_at: number | string | null
  merged_by: string | null
  reviews: string
  teams: string
}

const millis = (value: number | string | null): number | null => (value === null ? null : Number(value))

function fromRow(r: TurnaroundRow): TurnaroundRecord {
  const reviews = JSON.parse(r.reviews) as Array<[string, number]>
  return {
    provider: r.provider, repository: r.repository, prNumber: Number(r.pr_number), entry: r.entry, author: r.author,
    openedAt: millis(r.opened_at), readyAt: millis(r.ready_at), firstReviewAt: millis(r.first_review_at),
    firstApprovalAt: millis(r.first_approval_at), mergedAt: millis(r.merged_at), closedAt: millis(r.closed_at), mergedBy: r.merged_by,
    reviews: reviews.map(([login, at]) => ({ login, at })), teams: JSON.parse(r.teams) as string[],
  }
}

export function createTurnaroundStore(driver: StoreDriver): TurnaroundStore {
  const read = async (s: (typeof turnaroundQueries)[keyof typeof turnaroundQueries], params: readonly Param[]) => (await driver.read<TurnaroundRow>(s, params)).map(fromRow)
  return {
    turnaroundOf: async (pr) => (await read(turnaroundQueries.find, [pr.provider, pr.repository, pr.prNumber]))[0],
    turnaroundSince: (since) => read(turnaroundQueries.since, [since]),
  }
}
