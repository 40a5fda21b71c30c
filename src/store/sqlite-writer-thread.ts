import Database from 'better-sqlite3'
import type BetterSqlite3 from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'
import type { SentStep, WriterFailure, WriterOutcome, WriterRequest } from './sqlite-writer.ts'

// The body of the SQLite writer thread (src/store/sqlite-writer.ts starts it): its own connection to the
// server's file commits the group commit's batches, so the commit's fsync blocks this thread, not the event
// loop that acknowledges deliveries. Node runs this file as it is from src (type stripping) and as .js from dist:
// only erasable TypeScript here, and nothing imported that would not load in a bare thread.

const db = new Database((workerData as { path: string }).path)
db.pragma('journal_mode = WAL')
// FULL: an acknowledged delivery must survive power loss too, not only a process crash.
db.pragma('synchronous = FULL')
// Never wait on the lock in here: the main thread retries a busy batch on its timer, later writes joining it.
db.pragma('busy_timeout = 0')

const sqlOf = new Map<number, string>()
const prepared = new Map<number, BetterSqlite3.Statement<unknown[]>>()
// Prepared on first use inside the transaction, so a statement SQLite refuses fails its own write only.
const statementOf = (n: number) => prepared.get(n) ?? prepared.set(n, db.prepare<unknown[]>(sqlOf.get(n)!)).get(n)!
const failure = (error: unknown): WriterFailure => ({
  message: error instanceof Error ? error.message : String(error),
  name: error instanceof Error ? error.name : 'Error',
  code: typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined,
})
const runWrite = (steps: SentStep[]) => steps.map(([n, params]) => statementOf(n).run(...params).changes)

// One failing write must not undo the others: the batch first runs as one plain transaction (the usual case);
// if anything in it throws, it is rolled back and runs again with each write in its own savepoint.
const commitAll = db.transaction((writes: SentStep[][]) => writes.map((w): WriterOutcome => ({ ok: true, value: runWrite(w) })))
const commitEach = db.transaction((writes: SentStep[][]) =>
  writes.map((w): WriterOutcome => {
    try {
      return { ok: true, value: db.transaction(runWrite)(w) }
    } catch (error) {
      return { ok: false, error: failure(error) }
    }
  }))
const isBusy = (error: unknown) => String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')

parentPort!.on('message', ({ id, statements, writes }: WriterRequest) => {
  try {
    for (const [n, sql] of statements) sqlOf.set(n, sql)
    parentPort!.postMessage({ id, outcomes: commitAll.immediate(writes) })
  } catch (error) {
    if (isBusy(error)) return parentPort!.postMessage({ id, failed: failure(error) })
    try {
      parentPort!.postMessage({ id, outcomes: commitEach.immediate(writes) })
    } catch (again) {
      parentPort!.postMessage({ id, failed: failure(again) })
    }
  }
})
