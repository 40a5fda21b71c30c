import { statements } from './dialect.ts'
import type { StoreDriver } from './store-driver.ts'

/** A channel's weekly post (migrations/0048): who holds it and until when, its upload, whether it is done. */
export interface WeeklyPostRecord {
  channel: string
  /** The ISO week, `2026-W50`. */
  week: string
  owner: string
  heldUntil: number
  /** The moment the summary is made as of (its scheduled time), whoever finishes it. */
  asOf: number
  /** When its upload was started; null before. */
  intentAt: number | null
  /** The file Slack gave the upload; null before. */
  fileId: string | null
  doneAt: number | null
}

/** The weekly posts' part of the store (src/insights/post-weekly.ts). Times are unix ms. */
export interface WeeklyPostStore {
  /**
   * Takes the channel's post of the week for `owner` until `until`: a new row, or a row no one finished whose
   * holder's time ran out by `now` (that replica died, or failed). True when taken: of every replica, one.
   */
  holdWeeklyPost(post: { channel: string; week: string; asOf: number }, owner: string, now: number, until: number): Promise<boolean>
  weeklyPostOf(channel: string, week: string): Promise<WeeklyPostRecord | undefined>
  /** The posts not done whose holder's time ran out by `now`. */
  leftWeeklyPosts(now: number): Promise<Array<{ channel: string; week: string }>>
  /** The upload is started (its outcome unknown until done): the intent's time. */
  recordWeeklyIntent(channel: string, week: string, at: number): Promise<void>
  recordWeeklyFile(channel: string, week: string, fileId: string): Promise<void>
  /** Posted (with its file), or refused by Slack for good: either way not tried again this week. */
  finishWeeklyPost(channel: string, week: string, outcome: 'posted' | 'refused', at: number): Promise<void>
  /** Forgets the channel's rows older than `keepFrom` (their weeks are long past). */
  forgetWeeklyPosts(channel: string, keepFrom: string): Promise<void>
}

/** Exported for the query-plan test (test/store/query-plans.test.ts). */
export const weeklyPostQueries = statements({
  hold: `INSERT INTO weekly_posts (channel, week, owner, held_until, as_of) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (channel, week) DO UPDATE SET owner = excluded.owner, held_until = excluded.held_until
    WHERE weekly_posts.done_at IS NULL AND weekly_posts.held_until < ?`,
  find: 'SELECT * FROM weekly_posts WHERE channel = ? AND week = ?',
  left: 'SELECT channel, week FROM weekly_posts WHERE done_at IS NULL AND held_until < ? ORDER BY week, channel{bytewise}',
  intent: 'UPDATE weekly_posts SET intent_at = ?, file_id = NULL WHERE channel = ? AND week = ?',
  file: 'UPDATE weekly_posts SET file_id = ? WHERE channel = ? AND week = ?',
  finish: 'UPDATE weekly_posts SET done_at = ?, outcome = ? WHERE channel = ? AND week = ?',
  forget: 'DELETE FROM weekly_posts WHERE channel = ? AND week < ?',
})

interface WeeklyPostRow {
  channel: string
  week: string
  owner: string
  held_until: number | string
  as_of: number | string
  intent_at: number | string | null
  file_id: string | null
  done_at: number | string | null
}

const millis = (value: number | string | null): number | null => (value === null ? null : Number(value))

export function createWeeklyPostStore(driver: StoreDriver): WeeklyPostStore {
  const q = weeklyPostQueries
  const change = async (statement: (typeof q)[keyof typeof q], params: Array<string | number | null>) => { await driver.write([[statement, params]]) }
  return {
    holdWeeklyPost: async (post, owner, now, until) => (await driver.write([[q.hold, [post.channel, post.week, owner, until, post.asOf, now]]]))[0] === 1,
    async weeklyPostOf(channel, week) {
      const row = (await driver.read<WeeklyPostRow>(q.find, [channel, week]))[0]
      return row && {
        channel: row.channel, week: row.week, owner: row.owner, heldUntil: Number(row.held_until), asOf: Number(row.as_of),
        intentAt: millis(row.intent_at), fileId: row.file_id, doneAt: millis(row.done_at),
      }
    },
    leftWeeklyPosts: (now) => driver.read<{ channel: string; week: string }>(q.left, [now]),
    recordWeeklyIntent: (channel, week, at) => change(q.intent, [at, channel, week]),
    recordWeeklyFile: (channel, week, fileId) => change(q.file, [fileId, channel, week]),
    finishWeeklyPost: (channel, week, outcome, at) => change(q.finish, [at, outcome, channel, week]),
    forgetWeeklyPosts: (channel, keepFrom) => change(q.forget, [channel, keepFrom]),
  }
}
