import type { Provider } from '../../machines/pull-request-event.ts'
import { REVIEW_KINDS, type ReviewKind } from '../../machines/review-kind.ts'
import { deleteSlice, statements, type Statement } from './dialect.ts'
import type { Param, StoreDriver } from './store-driver.ts'
import type { PullRequestRef } from './store.ts'

/** A review form as stored (migrations/0020): what a modal's private_metadata id stands for. */
export interface ReviewForm {
  id: string
  pr: PullRequestRef
  /** The head commit the message showed; '' where the host named none (Bitbucket). */
  headSha: string
  action: ReviewKind
  slackUser: string
  expiresAt: number
  /** Submitted already (on any replica): the form makes no second review. */
  submitted?: boolean
}

/** The review modal's part of the store (src/personal/review-from-slack.ts). */
export interface ReviewFormStore {
  /** Records a form (expired ones go in the same write). */
  saveReviewForm(form: ReviewForm): Promise<void>
  /** The form under this id, expired or not (the caller compares expiresAt); undefined for an id never issued. */
  reviewForm(id: string): Promise<ReviewForm | undefined>
  /** Marks the form submitted: true for exactly one caller, on any replica. */
  takeReviewForm(id: string): Promise<boolean>
}

/** Exported for the query-plan test (test/store/query-plans.test.ts), which explains every statement. */
export const reviewFormQueries = statements({
  deleteExpired: 'DELETE FROM review_forms WHERE expires_at <= ?',
  // The daily cleanup's, a slice at a time (a save deletes what expired since the last one, a few rows).
  forgetExpired: deleteSlice('review_forms', 'expires_at <= ?'),
  save: `INSERT INTO review_forms (id, provider, repository, pr_number, head_sha, action, slack_user, expires_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  find: 'SELECT * FROM review_forms WHERE id = ?',
  take: 'UPDATE review_forms SET submitted_at = ? WHERE id = ? AND submitted_at IS NULL',
})

interface FormRow {
  id: string
  provider: Provider
  repository: string
  pr_number: number | string
  head_sha: string
  action: string
  slack_user: string
  expires_at: number | string
  submitted_at: number | string | null
}

const isAction = (value: string): value is ReviewKind => (REVIEW_KINDS as readonly string[]).includes(value)

/** Cleanup's statement (create-store.ts forgetBefore), a slice at a time: the forms expired by now. */
export const deleteExpiredReviewForms = reviewFormQueries.forgetExpired

export function createReviewFormStore(driver: StoreDriver, now: () => number): ReviewFormStore {
  const first = async <Row>(s: Statement, params: readonly Param[]) => (await driver.read<Row>(s, params))[0]
  return {
    async saveReviewForm(f) {
      await driver.write([
        [reviewFormQueries.deleteExpired, [now()]],
        [reviewFormQueries.save, [f.id, f.pr.provider, f.pr.repository, f.pr.prNumber, f.headSha, f.action, f.slackUser, f.expiresAt, now()]],
      ])
    },
    async reviewForm(id) {
      const row = await first<FormRow>(reviewFormQueries.find, [id])
      if (!row || !isAction(row.action)) return undefined
      return {
        id: row.id, pr: { provider: row.provider, repository: row.repository, prNumber: Number(row.pr_number) },
        headSha: row.head_sha, action: row.action, slackUser: row.slack_user, expiresAt: Number(row.expires_at),
        ...(row.submitted_at === null ? {} : { submitted: true }),
      }
    },
    async takeReviewForm(id) {
      return ((await driver.write([[reviewFormQueries.take, [now(), id]]]))[0] ?? 0) === 1
    },
  }
}
