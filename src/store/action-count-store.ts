import { deleteSlice, statements } from './dialect.ts'
import type { StoreDriver } from './store-driver.ts'

/**
 * What people did from Slack, counted in the store (migrations/0021_person_actions.sql) so that every replica
 * counts the same actions: src/talk-back/person-limits.ts asks it for each review and reply.
 */
export interface ActionCounts {
  /**
   * One action of `kind` by `slackUser` at `now`: true, and recorded, when fewer than `limit` of theirs were
   * taken in the `windowMs` before it; false, and nothing recorded, otherwise. Atomic across replicas: of
   * concurrent takes at the limit's edge exactly as many succeed as the limit has room for.
   */
  takeAction(kind: string, slackUser: string, now: number, limit: number, windowMs: number): Promise<boolean>
}

/** Exported for the query-plan test (test/store/query-plans.test.ts), which explains every statement. */
export const actionCountQueries = statements({
  // Held until the take commits: the person's next take, on any replica, counts after this one.
  gate: `INSERT INTO person_action_gates (kind, slack_user, taken_at) VALUES (?, ?, ?)
    ON CONFLICT (kind, slack_user) DO UPDATE SET taken_at = excluded.taken_at`,
  prune: 'DELETE FROM person_actions WHERE kind = ? AND slack_user = ? AND taken_at <= ?',
  take: `INSERT INTO person_actions (kind, slack_user, taken_at)
    SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS {millis})
    WHERE (SELECT count(*) FROM person_actions WHERE kind = ? AND slack_user = ? AND taken_at > ?) < ?`,
  // Cleanup's (create-store.ts forgetBefore): a window is a minute, so nothing before the cutoff counts any more.
  deleteBefore: deleteSlice('person_actions', 'taken_at < ?'),
  deleteGatesBefore: deleteSlice('person_action_gates', 'taken_at < ?'),
})

/** Cleanup's statements, a slice at a time: the actions and the gates untouched since the cutoff. */
export const deleteActionsBefore = [actionCountQueries.deleteBefore, actionCountQueries.deleteGatesBefore] as const

export function createActionCounts(driver: StoreDriver): ActionCounts {
  return {
    async takeAction(kind, slackUser, now, limit, windowMs) {
      const since = now - windowMs
      const [, , taken] = await driver.write([
        [actionCountQueries.gate, [kind, slackUser, now]],
        [actionCountQueries.prune, [kind, slackUser, since]],
        [actionCountQueries.take, [kind, slackUser, now, kind, slackUser, since, limit]],
      ])
      return taken === 1
    },
  }
}
