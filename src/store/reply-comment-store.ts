import type { Provider } from '../../machines/pull-request-event.ts'
import { deleteSlice, statements, type Statement } from './dialect.ts'
import type { Param, StoreDriver } from './store-driver.ts'
import type { PullRequestRef } from './store.ts'

/** A thread reply's comment as stored (migrations/0019_reply_comments.sql). */
export interface ReplyCommentRecord extends PullRequestRef {
  channel: string
  replyTs: string
  slackUser: string
  /** Whose account made the comment: the person's linked one, or prherald's own (the person named). */
  author: 'person' | 'prherald'
  /** Undefined until the host answered the create: with an intent, the call's outcome is unknown. NO_COMMENT: deleted, none made. */
  commentId: string | undefined
  deleted: boolean
  intentAt: number
  /** The code thread the comment is a reply in (a link to a mirrored code comment); undefined: a conversation comment. */
  thread?: string | undefined
}

/**
 * The comment id of a deleted reply whose comment was looked for and not found: no comment was made. Never a
 * host's comment id; the row stays (deleted) so that a replay of the reply's post makes none.
 */
export const NO_COMMENT = ''

export type ReplyCommentIntent = Omit<ReplyCommentRecord, 'commentId' | 'deleted'>

/** Thread replies and their comments; the same statements on SQLite and PostgreSQL. */
export interface ReplyCommentStore {
  /** The pull request whose message is `ts` in `channel`: a reply's thread. */
  messageAt(channel: string, ts: string): Promise<PullRequestRef | undefined>
  replyComment(channel: string, replyTs: string): Promise<ReplyCommentRecord | undefined>
  /** The intent, before the host's call: a left one (no id) is replaced with this try's time. */
  recordReplyIntent(intent: ReplyCommentIntent): Promise<void>
  completeReplyComment(channel: string, replyTs: string, commentId: string): Promise<void>
  /** The call made nothing (the host refused it): the intent goes. */
  dropReplyIntent(channel: string, replyTs: string): Promise<void>
  markReplyDeleted(channel: string, replyTs: string): Promise<void>
  /** Every intent whose outcome is unknown, for the start-up recovery. */
  replyIntents(): Promise<ReplyCommentRecord[]>
}

/** Exported for the query-plan test (test/store/query-plans.test.ts), which explains every statement. */
export const replyCommentQueries = statements({
  // Cleanup's: a reply's comment is forgotten with the message it answered (message_ttl_days).
  deleteBefore: deleteSlice('reply_comments', 'updated_at < ?'),
  messageAt: 'SELECT provider, repository, pr_number FROM slack_messages WHERE channel = ? AND ts = ?',
  find: 'SELECT * FROM reply_comments WHERE channel = ? AND reply_ts = ?',
  // A left intent keeps its thread: the comment its try may have made is looked for there.
  record: `INSERT INTO reply_comments (channel, reply_ts, provider, repository, pr_number, slack_user, author, thread, intent_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (channel, reply_ts) DO UPDATE SET author = excluded.author, intent_at = excluded.intent_at, updated_at = excluded.updated_at
    WHERE reply_comments.comment_id IS NULL`,
  complete: 'UPDATE reply_comments SET comment_id = ?, updated_at = ? WHERE channel = ? AND reply_ts = ?',
  drop: 'DELETE FROM reply_comments WHERE channel = ? AND reply_ts = ? AND comment_id IS NULL',
  markDeleted: 'UPDATE reply_comments SET deleted = 1, updated_at = ? WHERE channel = ? AND reply_ts = ?',
  intents: 'SELECT * FROM reply_comments WHERE comment_id IS NULL',
})

interface Row {
  channel: string
  reply_ts: string
  provider: string
  repository: string
  pr_number: number | string
  slack_user: string
  author: string
  comment_id: string | null
  deleted: number | string
  intent_at: number | string
  thread: string | null
}

const fromRow = (r: Row): ReplyCommentRecord => ({
  channel: r.channel, replyTs: r.reply_ts, provider: r.provider as Provider, repository: r.repository, prNumber: Number(r.pr_number),
  slackUser: r.slack_user, author: r.author === 'prherald' ? 'prherald' : 'person', commentId: r.comment_id ?? undefined,
  deleted: Number(r.deleted) === 1, intentAt: Number(r.intent_at), thread: r.thread ?? undefined,
})

/** Cleanup's statement (create-store.ts forgetBefore), a slice at a time. */
export const deleteReplyCommentsBefore = replyCommentQueries.deleteBefore

export function createReplyCommentStore(driver: StoreDriver, now: () => number): ReplyCommentStore {
  const write = async (s: Statement, params: readonly Param[]) => { await driver.write([[s, params]]) }
  return {
    async messageAt(channel, ts) {
      const row = (await driver.read<{ provider: string; repository: string; pr_number: number | string }>(replyCommentQueries.messageAt, [channel, ts]))[0]
      return row ? { provider: row.provider as Provider, repository: row.repository, prNumber: Number(row.pr_number) } : undefined
    },
    async replyComment(channel, replyTs) {
      const row = (await driver.read<Row>(replyCommentQueries.find, [channel, replyTs]))[0]
      return row ? fromRow(row) : undefined
    },
    recordReplyIntent: (i) => write(replyCommentQueries.record, [i.channel, i.replyTs, i.provider, i.repository, i.prNumber, i.slackUser, i.author, i.thread ?? null, i.intentAt, now()]),
    completeReplyComment: (channel, replyTs, commentId) => write(replyCommentQueries.complete, [commentId, now(), channel, replyTs]),
    dropReplyIntent: (channel, replyTs) => write(replyCommentQueries.drop, [channel, replyTs]),
    markReplyDeleted: (channel, replyTs) => write(replyCommentQueries.markDeleted, [now(), channel, replyTs]),
    replyIntents: async () => (await driver.read<Row>(replyCommentQueries.intents)).map(fromRow),
  }
}
