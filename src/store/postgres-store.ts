import type { Provider } from '../../machines/pull-request-event.ts'
import type { PostgresPool } from './postgres-pool.ts'
import type { PoolClient } from 'pg'
import type {
  DeliveryOutcome, HookDeliveryMark, IncomingDelivery, MessageRecord, OpenPullRequestFilter, PendingDelivery, PersonLookup, PostIntent, PullRequestRef, Store,
} from './store.ts'
import {
  intentFromRow, messageFromRow, OPEN_MESSAGES_SQL, openMessageFromRow, personLookupFromRow, refFromRow, threadReplyFromRow,
  type IntentRow, type MessageRow, type OpenMessageRow, type PersonLookupRow, type PullRequestRow, type ThreadReplyRow,
} from './store-rows.ts'
import { createPostgresSharedWork } from './postgres-shared-work.ts'



interface DeliveryRow {
  seq: string
  provider: Provider
  delivery_id: string
  pr_key: string
  event: string
  received_at: string
}

// COLLATE "C": order channels byte-wise as SQLite does, whatever the database's locale.
const FIND_MESSAGES = `SELECT * FROM slack_messages WHERE provider = $1 AND repository = $2 AND pr_number = $3
  ORDER BY created_at, channel COLLATE "C"`
const SAVE_MESSAGE = `
  INSERT INTO slack_messages (provider, repository, pr_number, channel, ts, mentions, state, lifecycle, last_delivery_id, reactions, created_at, touched_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
  ON CONFLICT (provider, repository, pr_number, channel) DO UPDATE SET
    ts = excluded.ts, mentions = excluded.mentions, state = excluded.state, lifecycle = excluded.lifecycle,
    last_delivery_id = excluded.last_delivery_id, reactions = excluded.reactions, touched_at = excluded.touched_at`
const FORGET_MESSAGE = 'DELETE FROM slack_messages WHERE provider = $1 AND repository = $2 AND pr_number = $3 AND channel = $4'
const OPEN_PULL_REQUESTS = `SELECT provider, repository, pr_number FROM slack_messages
  WHERE provider = $1 AND state IN ('open', 'draft') AND ($2::text IS NULL OR repository = $2) AND touched_at >= $3
  GROUP BY provider, repository, pr_number ORDER BY repository COLLATE "C", pr_number`
const SAVE_HOOK_MARK = `
  INSERT INTO hook_delivery_marks (provider, hook, delivered_at, delivery_id, updated_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (provider, hook) DO UPDATE SET
    delivered_at = excluded.delivered_at, delivery_id = excluded.delivery_id, updated_at = excluded.updated_at`
const RECORD_INTENT = `
  INSERT INTO post_intents (provider, repository, pr_number, channel, marker, mentions, state, lifecycle, last_delivery_id, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
  ON CONFLICT (provider, repository, pr_number, channel) DO UPDATE SET
    marker = excluded.marker, mentions = excluded.mentions, state = excluded.state, lifecycle = excluded.lifecycle,
    last_delivery_id = excluded.last_delivery_id, created_at = excluded.created_at`
const SELECT_INTENTS = 'SELECT * FROM post_intents'
const DELETE_INTENT = 'DELETE FROM post_intents WHERE provider = $1 AND repository = $2 AND pr_number = $3 AND channel = $4'
const RECORD_DELIVERY = `
  INSERT INTO deliveries (provider, delivery_id, pr_key, event, received_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (provider, delivery_id) DO NOTHING`
const MARK_APPLIED = `UPDATE deliveries SET applied_at = $1, event = NULL WHERE provider = $2 AND delivery_id = ANY($3::text[])`
const OPEN_MESSAGES = `${OPEN_MESSAGES_SQL} ORDER BY channel COLLATE "C", created_at, repository COLLATE "C", pr_number`
const MARK_ACTIVITY = `UPDATE slack_messages SET activity_at = $1 WHERE provider = $2 AND repository = $3 AND pr_number = $4 AND ts <> ''`
const PENDING = `SELECT seq, provider, delivery_id, pr_key, event, received_at FROM deliveries
  WHERE applied_at IS NULL ORDER BY seq`

const REPLY_KEYS = 'provider = $1 AND repository = $2 AND pr_number = $3 AND channel = $4 AND reply_key = $5'
// An intent never overwrites a posted reply; a repeated intent moves the search's start to now.
const RECORD_REPLY = `
  INSERT INTO thread_replies (provider, repository, pr_number, channel, reply_key, ts, created_at) VALUES ($1, $2, $3, $4, $5, NULL, $6)
  ON CONFLICT (provider, repository, pr_number, channel, reply_key) DO UPDATE SET created_at = excluded.created_at
  WHERE thread_replies.ts IS NULL`
const SAVE_HEAD = `
  INSERT INTO pull_request_heads (provider, repository, sha, pr_number, seen_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (provider, repository, sha, pr_number) DO UPDATE SET seen_at = excluded.seen_at`

export interface PostgresStoreDeps {
  pool: PostgresPool
  now?: () => number
  /** The per-pull-request locks' own pool (src/store/postgres-shared-work.ts); the store ends it too. */
  lockPool?: PostgresPool
}

/**
 * The PostgreSQL backend. Every call but commitOutcome (one transaction on one connection) is a single
 * statement on a pooled connection that commits on its own. SQLite's group commit is not needed here:
 * the server lets concurrent commits share a WAL flush. The pool belongs to the store: `close()` ends it.
 */
export function createPostgresStore({ pool, now = Date.now, lockPool }: PostgresStoreDeps): Store {
  const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0]?.n ?? 0)
  const messageParams = (m: MessageRecord, at: number) => [
    m.provider, m.repository, m.prNumber, m.channel, m.ts, JSON.stringify(m.mentions), m.state, m.lifecycle, m.lastDeliveryId, JSON.stringify(m.reactions), at,
  ]
  let closed: Promise<void> | undefined
  /** Runs `work` in one transaction on one connection; a connection whose ROLLBACK fails is destroyed, not pooled. */
  const transaction = async (work: (client: PoolClient) => Promise<void>) => {
    const client = await pool.connect()
    let broken: Error | undefined
    try {
      await client.query('BEGIN')
      await work(client)
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch((e: Error) => { broken = e })
      throw error
    } finally {
      client.release(broken)
    }
  }

  return {
    // Replicas: per-pull-request locks and delivery leases, in a file of their own.
    ...createPostgresSharedWork({ pool, lockPool, now, closing: () => closed !== undefined }),

    async findMessages(pr: PullRequestRef) {
      const { rows } = await pool.query<MessageRow>(FIND_MESSAGES, [pr.provider, pr.repository, pr.prNumber])
      return rows.map(messageFromRow)
    },
    async openPullRequests(filter: OpenPullRequestFilter) {
      const { rows } = await pool.query<PullRequestRow>(OPEN_PULL_REQUESTS, [filter.provider, filter.repository ?? null, filter.touchedSince ?? 0])
      return rows.map(refFromRow)
    },
    async saveMessage(m: MessageRecord) {
      await pool.query(SAVE_MESSAGE, messageParams(m, now()))
    },
    async deleteMessagesUntouchedSince(cutoff) {
      return (await pool.query('DELETE FROM slack_messages WHERE touched_at < $1', [cutoff])).rowCount ?? 0
    },
    countMessages: () => count('SELECT count(*) AS n FROM slack_messages'),
    async openMessages() {
      const { rows } = await pool.query<OpenMessageRow>(OPEN_MESSAGES)
      return rows.map(openMessageFromRow)
    },
    async recordDelivery(d: IncomingDelivery) {
      // Across replicas too: the unique key makes a concurrent second insert wait for the first and then do nothing.
      return (await pool.query(RECORD_DELIVERY, [d.provider, d.deliveryId, d.prKey, d.event, now()])).rowCount === 1
    },
    async pendingDeliveries(): Promise<PendingDelivery[]> {
      const { rows } = await pool.query<DeliveryRow>(PENDING)
      return rows.map((r) => ({
        seq: Number(r.seq), provider: r.provider, deliveryId: r.delivery_id, prKey: r.pr_key, event: r.event, receivedAt: Number(r.received_at),
      }))
    },
    async commitOutcome(outcome: DeliveryOutcome) {
      const forget = outcome.forget ?? []
      const active = outcome.activity
      if (outcome.messages.length === 0 && outcome.deliveryIds.length === 0 && forget.length === 0 && !active) return
      await transaction(async (client) => {
        const at = now()
        for (const m of outcome.messages) await client.query(SAVE_MESSAGE, messageParams(m, at))
        for (const f of forget) await client.query(FORGET_MESSAGE, [f.provider, f.repository, f.prNumber, f.channel])
        await client.query(MARK_APPLIED, [at, outcome.provider, outcome.deliveryIds])
        if (active) await client.query(MARK_ACTIVITY, [at, active.provider, active.repository, active.prNumber])
      })
    },
    countPendingDeliveries: () => count('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL'),
    async pendingDeliveryStats() {
      // count(*) is a bigint and received_at a BIGINT column: both arrive as strings.
      const { rows } = await pool.query<{ n: string; oldest: string | null }>(
        'SELECT count(*) AS n, min(received_at) AS oldest FROM deliveries WHERE applied_at IS NULL')
      const row = rows[0]
      return { count: Number(row?.n ?? 0), oldestReceivedAt: row?.oldest == null ? undefined : Number(row.oldest) }
    },
    async deleteAppliedDeliveriesBefore(cutoff) {
      return (await pool.query('DELETE FROM deliveries WHERE applied_at IS NOT NULL AND applied_at < $1', [cutoff])).rowCount ?? 0
    },
    async recordPostIntent(i: PostIntent) {
      await pool.query(RECORD_INTENT, [i.provider, i.repository, i.prNumber, i.channel, i.marker, JSON.stringify(i.mentions), i.state, i.lifecycle, i.lastDeliveryId, i.createdAt])
    },
    async findPostIntent(pr: PullRequestRef, channel: string) {
      const { rows } = await pool.query<IntentRow>(`${SELECT_INTENTS} WHERE provider = $1 AND repository = $2 AND pr_number = $3 AND channel = $4`, [pr.provider, pr.repository, pr.prNumber, channel])
      return rows[0] ? intentFromRow(rows[0]) : undefined
    },
    async postIntents() {
      return (await pool.query<IntentRow>(`${SELECT_INTENTS} ORDER BY created_at`)).rows.map(intentFromRow)
    },
    async completePostIntent(m: MessageRecord) {
      await transaction(async (client) => {
        await client.query(SAVE_MESSAGE, messageParams(m, now()))
        await client.query(`${DELETE_INTENT}`, [m.provider, m.repository, m.prNumber, m.channel])
      })
    },
    async dropPostIntent(pr: PullRequestRef, channel: string, marker: string) {
      await pool.query(`${DELETE_INTENT} AND marker = $5`, [pr.provider, pr.repository, pr.prNumber, channel, marker])
    },
    async findPersonLookup(login: string) {
      const { rows } = await pool.query<PersonLookupRow>('SELECT * FROM person_lookups WHERE login = $1', [login])
      return rows[0] ? personLookupFromRow(rows[0]) : undefined
    },
    async savePersonLookup(l: PersonLookup) {
      await pool.query(`INSERT INTO person_lookups (login, outcome, slack_user_id, expires_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (login) DO UPDATE SET outcome = excluded.outcome, slack_user_id = excluded.slack_user_id, expires_at = excluded.expires_at`,
      [l.login, l.outcome, l.slackUserId ?? null, l.expiresAt])
    },
    async findThreadReply(pr, channel, replyKey) {
      const { rows } = await pool.query<ThreadReplyRow>(`SELECT * FROM thread_replies WHERE ${REPLY_KEYS}`, [pr.provider, pr.repository, pr.prNumber, channel, replyKey])
      return rows[0] ? threadReplyFromRow(rows[0]) : undefined
    },
    async recordThreadReplyIntent(r) {
      await pool.query(RECORD_REPLY, [r.provider, r.repository, r.prNumber, r.channel, r.replyKey, r.createdAt])
    },
    async completeThreadReply(pr, channel, replyKey, ts) {
      await pool.query(`UPDATE thread_replies SET ts = $6 WHERE ${REPLY_KEYS}`, [pr.provider, pr.repository, pr.prNumber, channel, replyKey, ts])
    },
    async dropThreadReplyIntent(pr, channel, replyKey) {
      await pool.query(`DELETE FROM thread_replies WHERE ${REPLY_KEYS} AND ts IS NULL`, [pr.provider, pr.repository, pr.prNumber, channel, replyKey])
    },
    async deleteThreadRepliesBefore(cutoff) {
      let deleted = 0
      await transaction(async (client) => {
        deleted += (await client.query('DELETE FROM thread_replies WHERE created_at < $1', [cutoff])).rowCount ?? 0
        deleted += (await client.query('DELETE FROM pull_request_heads WHERE seen_at < $1', [cutoff])).rowCount ?? 0
      })
      return deleted
    },
    async saveHead(pr, sha) {
      await pool.query(SAVE_HEAD, [pr.provider, pr.repository, sha, pr.prNumber, now()])
    },
    async pullRequestsWithHead(provider, repository, sha) {
      const { rows } = await pool.query<{ pr_number: number }>(
        'SELECT pr_number FROM pull_request_heads WHERE provider = $1 AND repository = $2 AND sha = $3 ORDER BY pr_number', [provider, repository, sha])
      return rows.map((r) => r.pr_number)
    },
    async hookDeliveryMark(provider: Provider, hook: string) {
      const { rows } = await pool.query<{ delivered_at: string; delivery_id: string }>(
        'SELECT delivered_at, delivery_id FROM hook_delivery_marks WHERE provider = $1 AND hook = $2', [provider, hook])
      return rows[0] ? { deliveredAt: rows[0].delivered_at, deliveryId: rows[0].delivery_id } : undefined
    },
    async saveHookDeliveryMark(provider: Provider, hook: string, mark: HookDeliveryMark) {
      await pool.query(SAVE_HOOK_MARK, [provider, hook, mark.deliveredAt, mark.deliveryId, now()])
    },
    async claimRun(job: string, runKey: string) {
      // Across replicas: a concurrent second insert of the same key waits for the first, then does nothing.
      const result = await pool.query('INSERT INTO job_runs (job, run_key, claimed_at) VALUES ($1, $2, $3) ON CONFLICT (job, run_key) DO NOTHING', [job, runKey, now()])
      return result.rowCount === 1
    },
    async deleteRunClaimsBefore(cutoff) {
      return (await pool.query('DELETE FROM job_runs WHERE claimed_at < $1', [cutoff])).rowCount ?? 0
    },
    close() {
      // pool.end() throws when called twice; SQLite's close is idempotent, so this one is too.
      closed ??= Promise.all([pool.end(), lockPool?.end()]).then(() => undefined)
      return closed
    },
  }
}
