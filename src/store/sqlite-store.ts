import type BetterSqlite3 from 'better-sqlite3'
import type { Worker } from 'node:worker_threads'
import { PrheraldError } from '../errors.ts'
import { createStore } from './create-store.ts'
import type { Statement } from './dialect.ts'
import type { SqliteDatabase } from './open-database.ts'
import { queries } from './queries.ts'
import { createSqliteSharedWork } from './sqlite-shared-work.ts'
import { startSqliteWriter, writerError, type WriterOutcome, type WriterStep } from './sqlite-writer.ts'
import type { Param, Step, StoreDriver } from './store-driver.ts'
import type { Store } from './store.ts'

/** How long a write waits for another program's write lock: the delivery behind it still gets its 5xx well inside the git hosts' 10 s. */
export const LOCK_WAIT_MS = 5000

export interface SqliteStoreOptions {
  /** Give up a write after waiting this long for a lock held by another program (default LOCK_WAIT_MS). */
  lockWaitMs?: number
  /** Called when a batch first finds the database locked, with the number of writes now waiting. */
  onLockWait?: (writes: number) => void
  /**
   * Asked before every group commit: `deleted` or `replaced` when the path no longer names the opened file.
   * SQLite would commit into the unlinked file without a word, so every write of the batch is refused instead.
   */
  fileState?: () => 'ok' | 'deleted' | 'replaced'
  /** Called with each writer thread as it starts (the first write starts one; so does the first after one died). */
  onWriterStart?: (thread: Worker) => void
}

const isBusy = (error: unknown) => String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')

/** The SQLite backend: the one Store (src/store/create-store.ts) over better-sqlite3. */
export function createSqliteStore(db: SqliteDatabase, now: () => number = Date.now, options: SqliteStoreOptions = {}): Store {
  const driver = createSqliteDriver(db, options)
  return createStore({ driver, sharedWork: createSqliteSharedWork(driver), now })
}

/**
 * Reads run on this connection, every statement prepared once; writes are committed by a thread with its
 * own connection to the same file (src/store/sqlite-writer.ts), so a commit's fsync never blocks the event
 * loop. In WAL mode a read here after a write resolved sees it: the write resolves only once committed.
 */
function createSqliteDriver(db: SqliteDatabase, options: SqliteStoreOptions): StoreDriver {
  const prepared = new Map<Statement, BetterSqlite3.Statement<Param[]>>(
    Object.values(queries).map((s) => [s, db.prepare<Param[]>(s.sqlite)]))
  const statementOf = (s: Statement) => prepared.get(s) ?? prepared.set(s, db.prepare<Param[]>(s.sqlite)).get(s)!
  const writer = startSqliteWriter(db.name, options.onWriterStart)

  // Group commit: every write waits for the end of the current turn of the event loop, and all writes
  // queued by then (and while the previous batch is still on the thread) share one transaction, so one
  // fsync, instead of paying one each. Every caller hears back only after the commit; one failing write
  // does not undo the others (the thread retries such a batch with a savepoint per write).
  // A write lock held by another process: the thread never waits (busy_timeout 0, BEGIN IMMEDIATE), and a
  // busy batch is retried on a timer with backoff, later writes joining it, until each write's own deadline
  // (lockWaitMs after it was queued) rejects it with `database_busy`.
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS
  type Item = { writes: WriterStep[]; resolve: (value: number[]) => void; reject: (e: unknown) => void; deadline: number }
  let queue: Item[] = []
  let retry: { timer: NodeJS.Timeout; attempt: number } | undefined
  let committing: Promise<void> | undefined
  const busyError = (cause: unknown) => new PrheraldError('database_busy', `the database ${db.name} stayed locked by another program for ${lockWaitMs} ms`, {
    cause,
    fix: 'another program holds a write transaction open on the database (a sqlite3 shell, a backup tool); end it. Refused deliveries are redelivered by the git host or from its delivery log',
  })
  const commitBatch = async (items: Item[], attempt: number, final: boolean) => {
    let outcomes: WriterOutcome[]
    try {
      outcomes = await writer.commit(items.map((item) => item.writes))
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
      queue = [...waiting, ...queue]
      const soonest = Math.min(...waiting.map((item) => item.deadline)) - t
      const delay = Math.max(1, Math.min(soonest, 250, 5 * 2 ** attempt))
      retry = { timer: setTimeout(flush, delay), attempt: attempt + 1 }
      return
    }
    items.forEach((item, i) => {
      const outcome = outcomes[i]!
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(writerError(outcome.error))
    })
  }
  const flush = (final = false) => {
    if (committing) return
    const attempt = retry?.attempt ?? 0
    if (retry) clearTimeout(retry.timer)
    retry = undefined
    const items = queue
    queue = []
    if (items.length === 0) return
    const fileState = options.fileState?.() ?? 'ok'
    if (fileState !== 'ok') {
      const error = new PrheraldError('database_gone', `the database file ${db.name} was ${fileState} while the server runs; nothing is written to it`, {
        fix: 'put the database file back and restart prherald (see the server log); redeliver what was refused meanwhile',
      })
      for (const item of items) item.reject(error)
      return
    }
    committing = commitBatch(items, attempt, final).finally(() => {
      committing = undefined
      // Writes queued while this batch was on the thread form the next one (unless a retry is scheduled).
      if (!retry) flush(final)
    })
  }
  const write = (writes: WriterStep[]): Promise<number[]> => new Promise((resolve, reject) => {
    // While a batch is on the thread or a retry is scheduled, a new write joins the next batch.
    if (queue.length === 0 && !retry && !committing) setImmediate(flush)
    queue.push({ writes, resolve, reject, deadline: Date.now() + lockWaitMs })
  })

  return {
    async read<Row>(s: Statement, params: readonly Param[] = []) {
      return statementOf(s).all(...params) as Row[]
    },
    write(steps: readonly Step[]) {
      return write(steps.map(([s, params]) => [s.sqlite, params] as const))
    },
    async close() {
      if (retry) clearTimeout(retry.timer)
      retry = undefined
      // Drain: the batch on the thread, then whatever queued behind it, each awaited before the thread ends.
      while (committing || queue.length > 0) {
        if (committing) await committing
        else flush(true)
      }
      await writer.close()
      if (db.open) db.close()
    },
  }
}
