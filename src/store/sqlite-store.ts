import type BetterSqlite3 from 'better-sqlite3'
import { PrheraldError } from '../errors.ts'
import { createStore } from './create-store.ts'
import type { Statement } from './dialect.ts'
import type { SqliteDatabase } from './open-database.ts'
import { queries } from './queries.ts'
import { createSqliteSharedWork } from './sqlite-shared-work.ts'
import type { Param, Step, StoreDriver } from './store-driver.ts'
import type { Store } from './store.ts'
import { takeWriteTurn, type WriteTurn } from './write-turn.ts'

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
  /**
   * The process's write turn, when it has a second writer of its own (the acknowledging thread's connection,
   * src/store/open-intake-store.ts): each commit takes it first, so that the two wait out each other's commit
   * instead of taking it for another program's lock (write-turn.ts).
   */
  writeTurn?: WriteTurn
}

/** How long a commit waits for the process's other connection's commit before it goes ahead anyway (write-turn.ts). */
export const WRITE_TURN_WAIT_MS = 100

const isBusy = (error: unknown) => String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')

/** The SQLite backend: the one Store (src/store/create-store.ts) over better-sqlite3. */
export function createSqliteStore(db: SqliteDatabase, now: () => number = Date.now, options: SqliteStoreOptions = {}): Store {
  const driver = createSqliteDriver(db, options)
  return createStore({ driver, sharedWork: createSqliteSharedWork(driver), now })
}

/**
 * Every statement is prepared once, here; better-sqlite3 is synchronous, so a write's steps run as one
 * synchronous function inside the group commit below.
 */
function createSqliteDriver(db: SqliteDatabase, options: SqliteStoreOptions): StoreDriver {
  const prepared = new Map<Statement, BetterSqlite3.Statement<Param[]>>(
    Object.values(queries).map((s) => [s, db.prepare<Param[]>(s.sqlite)]))
  const statementOf = (s: Statement) => prepared.get(s) ?? prepared.set(s, db.prepare<Param[]>(s.sqlite)).get(s)!

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
    const release = options.writeTurn && takeWriteTurn(options.writeTurn, WRITE_TURN_WAIT_MS)
    try {
      return commitAll.immediate(items)
    } catch (error) {
      if (isBusy(error)) throw error
      return commitEach.immediate(items)
    } finally {
      release?.()
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
    const fileState = options.fileState?.() ?? 'ok'
    if (fileState !== 'ok') {
      const error = new PrheraldError('database_gone', `the database file ${db.name} was ${fileState} while the server runs; nothing is written to it`, {
        fix: 'put the database file back and restart prherald (see the server log); redeliver what was refused meanwhile',
      })
      for (const item of items) item.reject(error)
      return
    }
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

  return {
    async read<Row>(s: Statement, params: readonly Param[] = []) {
      return statementOf(s).all(...params) as Row[]
    },
    write: (steps: readonly Step[]) => write(() => steps.map(([s, params]) => statementOf(s).run(...params).changes)),
    async close() {
      if (retry) clearTimeout(retry.timer)
      flush(true)
      if (db.open) db.close()
    },
  }
}
