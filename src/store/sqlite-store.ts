import type { Provider } from '../../machines/pull-request-event.ts'
import { PrheraldError } from '../errors.ts'
import type { SqliteDatabase } from './open-database.ts'
import type {
  DeliveryOutcome, HookDeliveryMark, IncomingDelivery, MessageRecord, OpenPullRequestFilter, PendingDelivery, PersonLookup, PostIntent, PullRequestRef, Store,
} from './store.ts'
import {
  intentFromRow, messageFromRow, OPEN_MESSAGES_SQL, openMessageFromRow, personLookupFromRow, refFromRow, threadReplyFromRow,
  type IntentRow, type MessageRow, type OpenMessageRow, type PersonLookupRow, type PullRequestRow, type ThreadReplyRow,
} from './store-rows.ts'
import { createSqliteSharedWork } from './sqlite-shared-work.ts'


interface DeliveryRow {
  seq: number
  provider: Provider
  delivery_id: string
  pr_key: string
  event: string
  received_at: number
}


/** How long a write waits for another program's write lock: the delivery behind it still gets its 5xx well inside the git hosts' 10 s. */
export const LOCK_WAIT_MS = 5000

export interface SqliteStoreOptions {
  /** Give up a write after waiting this long for a lock held by another program (default LOCK_WAIT_MS). */
  lockWaitMs?: number
  /** Called when a batch first finds the database locked, with the number of writes now waiting. */
  onLockWait?: (writes: number) => void
}

const isBusy = (error: unknown) => String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')

/** The SQLite backend. Statements are prepared once; better-sqlite3 is synchronous, so each call is one step. */
export function createSqliteStore(db: SqliteDatabase, now: () => number = Date.now, options: SqliteStoreOptions = {}): Store {
  const findMessages = db.prepare<[string, string, number], MessageRow>(
    'SELECT * FROM slack_messages WHERE provider = ? AND repository = ? AND pr_number = ? ORDER BY created_at, channel')
  const saveMessage = db.prepare(`
    INSERT INTO slack_messages (provider, repository, pr_number, channel, ts, mentions, state, lifecycle, last_delivery_id, reactions, created_at, touched_at)
    VALUES (@provider, @repository, @prNumber, @channel, @ts, @mentions, @state, @lifecycle, @lastDeliveryId, @reactions, @now, @now)
    ON CONFLICT (provider, repository, pr_number, channel) DO UPDATE SET
      ts = excluded.ts, mentions = excluded.mentions, state = excluded.state, lifecycle = excluded.lifecycle,
      last_delivery_id = excluded.last_delivery_id, reactions = excluded.reactions, touched_at = excluded.touched_at`)
  const forgetMessage = db.prepare('DELETE FROM slack_messages WHERE provider = ? AND repository = ? AND pr_number = ? AND channel = ?')
  const deleteOldMessages = db.prepare('DELETE FROM slack_messages WHERE touched_at < ?')
  const countMessages = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM slack_messages')
  const openMessages = db.prepare<[], OpenMessageRow>(`${OPEN_MESSAGES_SQL} ORDER BY channel, created_at, repository, pr_number`)
  const markActivity = db.prepare(`UPDATE slack_messages SET activity_at = ? WHERE provider = ? AND repository = ? AND pr_number = ? AND ts <> ''`)
  const recordDelivery = db.prepare(`
    INSERT INTO deliveries (provider, delivery_id, pr_key, event, received_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, delivery_id) DO NOTHING`)
  const pending = db.prepare<[], DeliveryRow>(
    'SELECT seq, provider, delivery_id, pr_key, event, received_at FROM deliveries WHERE applied_at IS NULL ORDER BY seq')
  const markApplied = db.prepare('UPDATE deliveries SET applied_at = ?, event = NULL WHERE provider = ? AND delivery_id = ?')
  const countPending = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL')
  const pendingStats = db.prepare<[], { n: number; oldest: number | null }>(
    'SELECT count(*) AS n, min(received_at) AS oldest FROM deliveries WHERE applied_at IS NULL')
  const deleteApplied = db.prepare('DELETE FROM deliveries WHERE applied_at IS NOT NULL AND applied_at < ?')
  const recordIntent = db.prepare(`
    INSERT OR REPLACE INTO post_intents (provider, repository, pr_number, channel, marker, mentions, state, lifecycle, last_delivery_id, created_at)
    VALUES (@provider, @repository, @prNumber, @channel, @marker, @mentions, @state, @lifecycle, @lastDeliveryId, @createdAt)`)
  const findIntent = db.prepare<[string, string, number, string], IntentRow>(
    'SELECT * FROM post_intents WHERE provider = ? AND repository = ? AND pr_number = ? AND channel = ?')
  const allIntents = db.prepare<[], IntentRow>('SELECT * FROM post_intents ORDER BY created_at')
  const deleteIntent = db.prepare('DELETE FROM post_intents WHERE provider = ? AND repository = ? AND pr_number = ? AND channel = ?')
  const findLookup = db.prepare<[string], PersonLookupRow>('SELECT * FROM person_lookups WHERE login = ?')
  const saveLookup = db.prepare(`
    INSERT OR REPLACE INTO person_lookups (login, outcome, slack_user_id, expires_at) VALUES (?, ?, ?, ?)`)
  const claimRun = db.prepare('INSERT INTO job_runs (job, run_key, claimed_at) VALUES (?, ?, ?) ON CONFLICT (job, run_key) DO NOTHING')
  const deleteRunClaims = db.prepare('DELETE FROM job_runs WHERE claimed_at < ?')
  const deleteIntentWithMarker = db.prepare(
    'DELETE FROM post_intents WHERE provider = ? AND repository = ? AND pr_number = ? AND channel = ? AND marker = ?')

  const prKeys = 'provider = ? AND repository = ? AND pr_number = ? AND channel = ? AND reply_key = ?'
  const findReply = db.prepare<[string, string, number, string, string], ThreadReplyRow>(`SELECT * FROM thread_replies WHERE ${prKeys}`)
  // An intent never overwrites a posted reply; a repeated intent moves the search's start to now.
  const recordReply = db.prepare(`
    INSERT INTO thread_replies (provider, repository, pr_number, channel, reply_key, ts, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)
    ON CONFLICT (provider, repository, pr_number, channel, reply_key) DO UPDATE SET created_at = excluded.created_at
    WHERE thread_replies.ts IS NULL`)
  const completeReply = db.prepare(`UPDATE thread_replies SET ts = ? WHERE ${prKeys}`)
  const dropReply = db.prepare(`DELETE FROM thread_replies WHERE ${prKeys} AND ts IS NULL`)
  const deleteOldReplies = db.prepare('DELETE FROM thread_replies WHERE created_at < ?')
  const deleteOldHeads = db.prepare('DELETE FROM pull_request_heads WHERE seen_at < ?')
  const saveHead = db.prepare(`
    INSERT INTO pull_request_heads (provider, repository, sha, pr_number, seen_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, repository, sha, pr_number) DO UPDATE SET seen_at = excluded.seen_at`)
  const withHead = db.prepare<[string, string, string], { pr_number: number }>(
    'SELECT pr_number FROM pull_request_heads WHERE provider = ? AND repository = ? AND sha = ? ORDER BY pr_number')
  const openPullRequests = db.prepare<[string, string | null, string | null, number], PullRequestRow>(`
    SELECT provider, repository, pr_number FROM slack_messages
    WHERE provider = ? AND state IN ('open', 'draft') AND (? IS NULL OR repository = ?) AND touched_at >= ?
    GROUP BY provider, repository, pr_number ORDER BY repository, pr_number`)
  const findHookMark = db.prepare<[string, string], { delivered_at: string; delivery_id: string }>(
    'SELECT delivered_at, delivery_id FROM hook_delivery_marks WHERE provider = ? AND hook = ?')
  const saveHookMark = db.prepare(`
    INSERT INTO hook_delivery_marks (provider, hook, delivered_at, delivery_id, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (provider, hook) DO UPDATE SET
      delivered_at = excluded.delivered_at, delivery_id = excluded.delivery_id, updated_at = excluded.updated_at`)

  // Group commit: every write waits for the end of the current turn of the event loop, and all writes
  // queued by then share one transaction, so one fsync, instead of paying one each. Every caller hears back
  // only after the commit. One failing write must not undo the others: the batch first runs as one plain
  // transaction (the usual case, nothing fails); if anything in it throws, that transaction is rolled back
  // and the batch runs again with each write in its own savepoint (a nested better-sqlite3 transaction),
  // which isolates the failure at the price of two more statements per write.
  // A write lock held by another process must never stall the event loop (SQLite's busy timeout waits
  // synchronously, and /healthz would wait with it): the connection never waits (busy_timeout 0), each
  // transaction takes the write lock up front (BEGIN IMMEDIATE, so a busy database fails before any statement
  // runs), and a busy batch is retried on a timer with backoff, later writes joining it, until each write's
  // own deadline (lockWaitMs after it was queued) rejects it with `database_busy`.
  db.pragma('busy_timeout = 0')
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS
  type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }
  type Item = { run: () => unknown; resolve: (value: never) => void; reject: (e: unknown) => void; deadline: number }
  let queue: Item[] = []
  let retry: { timer: NodeJS.Timeout; attempt: number } | undefined
  const commitAll = db.transaction((items: Item[]) => items.map((item): Outcome => ({ ok: true, value: item.run() })))
  const commitEach = db.transaction((items: Item[]) =>
    items.map((item): Outcome => {
      try {
        return { ok: true, value: db.transaction(item.run)() }
      } catch (error) {
        return { ok: false, error }
      }
    }))
  const commit = (items: Item[]): Outcome[] => {
    try {
      return commitAll.immediate(items)
    } catch (error) {
      if (isBusy(error)) throw error
      return commitEach.immediate(items)
    }
  }
  const busyError = (cause: unknown) => new PrheraldError('database_busy', `the database ${db.name} stayed locked by another program for ${lockWaitMs} ms`, {
    cause,
    fix: 'another program holds a write transaction open on the database (a sqlite3 shell, a backup tool); end it. Refused deliveries are redelivered by the git host or from its delivery log',
  })
  const flush = (final = false) => {
    const attempt = retry?.attempt ?? 0
    retry = undefined
    const items = queue
    queue = []
    if (items.length === 0) return
    let outcomes: Outcome[]
    try {
      outcomes = commit(items)
    } catch (error) {
      if (!isBusy(error)) {
        for (const item of items) item.reject(error)
        return
      }
      const t = Date.now()
      const waiting = final ? [] : items.filter((item) => item.deadline > t)
      for (const item of items) if (!waiting.includes(item)) item.reject(busyError(error))
      if (waiting.length === 0) return
      if (attempt === 0) options.onLockWait?.(waiting.length)
      queue = waiting
      const soonest = Math.min(...waiting.map((item) => item.deadline)) - t
      const delay = Math.max(1, Math.min(soonest, 250, 5 * 2 ** attempt))
      retry = { timer: setTimeout(flush, delay), attempt: attempt + 1 }
      return
    }
    items.forEach((item, i) => {
      const outcome = outcomes[i]!
      if (outcome.ok) item.resolve(outcome.value as never)
      else item.reject(outcome.error)
    })
  }
  const write = <T>(run: () => T): Promise<T> => new Promise<T>((resolve, reject) => {
    // While a retry is scheduled, a new write joins the waiting batch instead of committing on its own.
    if (queue.length === 0 && !retry) setImmediate(flush)
    queue.push({ run, resolve: resolve as (value: never) => void, reject, deadline: Date.now() + lockWaitMs })
  })

  const messageParams = (m: MessageRecord, at: number) => ({ ...m, mentions: JSON.stringify(m.mentions), reactions: JSON.stringify(m.reactions), now: at })


  return {
    ...createSqliteSharedWork(db),
    async findMessages(pr: PullRequestRef) {
      return findMessages.all(pr.provider, pr.repository, pr.prNumber).map(messageFromRow)
    },
    async saveMessage(m: MessageRecord) {
      await write(() => saveMessage.run(messageParams(m, now())))
    },
    async openPullRequests(filter: OpenPullRequestFilter) {
      const repository = filter.repository ?? null
      return openPullRequests.all(filter.provider, repository, repository, filter.touchedSince ?? 0).map(refFromRow)
    },
    deleteMessagesUntouchedSince(cutoff) {
      return write(() => deleteOldMessages.run(cutoff).changes)
    },
    async countMessages() {
      return countMessages.get()?.n ?? 0
    },
    async openMessages() {
      return openMessages.all().map(openMessageFromRow)
    },
    recordDelivery(d: IncomingDelivery) {
      return write(() => recordDelivery.run(d.provider, d.deliveryId, d.prKey, d.event, now()).changes === 1)
    },
    async pendingDeliveries(): Promise<PendingDelivery[]> {
      return pending.all().map((r) => ({
        seq: r.seq, provider: r.provider, deliveryId: r.delivery_id, prKey: r.pr_key, event: r.event, receivedAt: r.received_at,
      }))
    },
    async commitOutcome(outcome: DeliveryOutcome) {
      await write(() => {
        const at = now()
        for (const m of outcome.messages) saveMessage.run(messageParams(m, at))
        for (const f of outcome.forget ?? []) forgetMessage.run(f.provider, f.repository, f.prNumber, f.channel)
        for (const id of outcome.deliveryIds) markApplied.run(at, outcome.provider, id)
        const active = outcome.activity
        if (active) markActivity.run(at, active.provider, active.repository, active.prNumber)
      })
    },
    async countPendingDeliveries() {
      return countPending.get()?.n ?? 0
    },
    async pendingDeliveryStats() {
      const row = pendingStats.get()
      return { count: row?.n ?? 0, oldestReceivedAt: row?.oldest ?? undefined }
    },
    deleteAppliedDeliveriesBefore(cutoff) {
      return write(() => deleteApplied.run(cutoff).changes)
    },
    async recordPostIntent(intent: PostIntent) {
      await write(() => recordIntent.run({ ...intent, mentions: JSON.stringify(intent.mentions) }))
    },
    async findPostIntent(pr: PullRequestRef, channel: string) {
      const row = findIntent.get(pr.provider, pr.repository, pr.prNumber, channel)
      return row ? intentFromRow(row) : undefined
    },
    async postIntents() {
      return allIntents.all().map(intentFromRow)
    },
    async completePostIntent(m: MessageRecord) {
      await write(() => {
        saveMessage.run(messageParams(m, now()))
        deleteIntent.run(m.provider, m.repository, m.prNumber, m.channel)
      })
    },
    async dropPostIntent(pr: PullRequestRef, channel: string, marker: string) {
      await write(() => deleteIntentWithMarker.run(pr.provider, pr.repository, pr.prNumber, channel, marker))
    },
    async findPersonLookup(login: string) {
      const row = findLookup.get(login)
      return row ? personLookupFromRow(row) : undefined
    },
    async savePersonLookup(l: PersonLookup) {
      await write(() => saveLookup.run(l.login, l.outcome, l.slackUserId ?? null, l.expiresAt))
    },
    async findThreadReply(pr: PullRequestRef, channel: string, replyKey: string) {
      const row = findReply.get(pr.provider, pr.repository, pr.prNumber, channel, replyKey)
      return row ? threadReplyFromRow(row) : undefined
    },
    async recordThreadReplyIntent(r) {
      await write(() => recordReply.run(r.provider, r.repository, r.prNumber, r.channel, r.replyKey, r.createdAt))
    },
    async completeThreadReply(pr, channel, replyKey, ts) {
      await write(() => completeReply.run(ts, pr.provider, pr.repository, pr.prNumber, channel, replyKey))
    },
    async dropThreadReplyIntent(pr, channel, replyKey) {
      await write(() => dropReply.run(pr.provider, pr.repository, pr.prNumber, channel, replyKey))
    },
    deleteThreadRepliesBefore(cutoff) {
      return write(() => deleteOldReplies.run(cutoff).changes + deleteOldHeads.run(cutoff).changes)
    },
    async saveHead(pr, sha) {
      await write(() => saveHead.run(pr.provider, pr.repository, sha, pr.prNumber, now()))
    },
    async pullRequestsWithHead(provider, repository, sha) {
      return withHead.all(provider, repository, sha).map((r) => r.pr_number)
    },
    async hookDeliveryMark(provider: Provider, hook: string) {
      const row = findHookMark.get(provider, hook)
      return row ? { deliveredAt: row.delivered_at, deliveryId: row.delivery_id } : undefined
    },
    async saveHookDeliveryMark(provider: Provider, hook: string, mark: HookDeliveryMark) {
      await write(() => saveHookMark.run(provider, hook, mark.deliveredAt, mark.deliveryId, now()))
    },
    claimRun(job: string, runKey: string) {
      return write(() => claimRun.run(job, runKey, now()).changes === 1)
    },
    deleteRunClaimsBefore(cutoff) {
      return write(() => deleteRunClaims.run(cutoff).changes)
    },
    async close() {
      if (retry) clearTimeout(retry.timer)
      flush(true)
      if (db.open) db.close()
    },
  }
}
