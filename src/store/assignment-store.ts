import { PrheraldError } from '../errors.ts'
import { deleteSlice, statements } from './dialect.ts'
import type { StoreDriver } from './store-driver.ts'
import type { PullRequestRef } from './store.ts'

/** One pull request's assignment (migrations/0047): who was chosen from which team, and the line said in its thread. */
export interface AssignmentRecord extends PullRequestRef {
  /** provider, owner and team, lower-cased: round_robin's position is the newest row of it. */
  teamKey: string
  /** The chosen people, as `users:` keys (a login, or a Bitbucket account id). */
  reviewers: string[]
  /** "Assigned dave (round robin; erin is away)". */
  said: string
  decidedAt: number
  /** When the host took the request; null until then. */
  requestedAt: number | null
}

/** The assignment part of the store (src/assign/). */
export interface AssignmentStore {
  /**
   * Claims the pull request's one decision: the row is written unless the pull request has one, and the row
   * that stands (this one, or the one another replica or an earlier run wrote) is returned.
   */
  claimAssignment(record: Omit<AssignmentRecord, 'requestedAt'>): Promise<AssignmentRecord>
  /** The pull request's decision, if one was made. */
  assignmentOf(pr: PullRequestRef): Promise<AssignmentRecord | undefined>
  /** Marks the decision carried out at the host. */
  markRequested(pr: PullRequestRef, at: number): Promise<void>
  /** The newest decision for the team: round_robin goes on after its reviewers. */
  lastAssignment(teamKey: string): Promise<AssignmentRecord | undefined>
  /** `/prherald away until <day>`: the day (YYYY-MM-DD, inclusive) the person is away through; undefined ends it. */
  setAway(slackUser: string, untilDay: string | undefined, at: number): Promise<void>
  /** The day the person marked themselves away through, if they did. */
  awayUntil(slackUser: string): Promise<string | undefined>
}

/** The assignment statements (exported for the index test, test/store/query-plans.test.ts). */
export const assignmentQueries = statements({
  claim: `INSERT INTO review_assignments (provider, repository, pr_number, team_key, reviewers, said, decided_at)
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (provider, repository, pr_number) DO NOTHING`,
  find: 'SELECT * FROM review_assignments WHERE provider = ? AND repository = ? AND pr_number = ?',
  requested: 'UPDATE review_assignments SET requested_at = ? WHERE provider = ? AND repository = ? AND pr_number = ? AND requested_at IS NULL',
  last: 'SELECT * FROM review_assignments WHERE team_key = ? ORDER BY decided_at DESC LIMIT 1',
  setAway: `INSERT INTO away_marks (slack_user, until_day, set_at) VALUES (?, ?, ?)
    ON CONFLICT (slack_user) DO UPDATE SET until_day = excluded.until_day, set_at = excluded.set_at`,
  endAway: 'DELETE FROM away_marks WHERE slack_user = ?',
  away: 'SELECT until_day FROM away_marks WHERE slack_user = ?',
  deleteBefore: deleteSlice('review_assignments', 'decided_at < ?'),
})

/** Cleanup's statement (create-store.ts forgetBefore), counted with the run claims: a decision is a claim too. */
export const deleteAssignmentsBefore = assignmentQueries.deleteBefore

interface AssignmentRow {
  provider: string
  repository: string
  pr_number: number | string
  team_key: string
  reviewers: string
  said: string
  decided_at: number | string
  requested_at: number | string | null
}

function fromRow(r: AssignmentRow): AssignmentRecord {
  return {
    provider: r.provider, repository: r.repository, prNumber: Number(r.pr_number), teamKey: r.team_key,
    reviewers: JSON.parse(r.reviewers) as string[], said: r.said, decidedAt: Number(r.decided_at),
    requestedAt: r.requested_at === null ? null : Number(r.requested_at),
  }
}

export function createAssignmentStore(driver: StoreDriver): AssignmentStore {
  const find = async (pr: PullRequestRef) => (await driver.read<AssignmentRow>(assignmentQueries.find, [pr.provider, pr.repository, pr.prNumber])).map(fromRow)[0]
  return {
    async claimAssignment(record) {
      await driver.write([[assignmentQueries.claim, [record.provider, record.repository, record.prNumber, record.teamKey,
        JSON.stringify(record.reviewers), record.said, record.decidedAt]]])
      const stands = await find(record)
      if (!stands) throw new PrheraldError('database', 'the review assignment was neither written nor found')
      return stands
    },
    assignmentOf: find,
    async markRequested(pr, at) {
      await driver.write([[assignmentQueries.requested, [at, pr.provider, pr.repository, pr.prNumber]]])
    },
    lastAssignment: async (teamKey) => (await driver.read<AssignmentRow>(assignmentQueries.last, [teamKey])).map(fromRow)[0],
    async setAway(slackUser, untilDay, at) {
      await driver.write([untilDay === undefined ? [assignmentQueries.endAway, [slackUser]] : [assignmentQueries.setAway, [slackUser, untilDay, at]]])
    },
    awayUntil: async (slackUser) => (await driver.read<{ until_day: string }>(assignmentQueries.away, [slackUser]))[0]?.until_day,
  }
}
