import { Worker } from 'node:worker_threads'
import { PrheraldError } from '../errors.ts'
import type { Param } from './store-driver.ts'

export type WriterStep = readonly [sql: string, params: readonly Param[]]
/** A step as sent: the statement's number; its SQL travels once per thread, in `statements`, to spare the copy. */
export type SentStep = readonly [statement: number, params: readonly Param[]]
export interface WriterRequest { id: number; statements: Array<[number, string]>; writes: SentStep[][] }
export interface WriterFailure { message: string; name: string; code: string | undefined }
export type WriterOutcome = { ok: true; value: number[] } | { ok: false; error: WriterFailure }
type WriterReply = { id: number; outcomes: WriterOutcome[] } | { id: number; failed: WriterFailure }

export interface SqliteWriter {
  /** Commits every write in one transaction on the thread; resolves with each write's outcome once durable. */
  commit(writes: WriterStep[][]): Promise<WriterOutcome[]>
  /** Ends the thread (after the commit in flight, which the caller awaits first). */
  close(): Promise<void>
}

// From src (vitest, through Node's type stripping in the thread) the .ts file; from dist the built .js.
const THREAD_URL = new URL(import.meta.url.endsWith('.ts') ? './sqlite-writer-thread.ts' : './sqlite-writer-thread.js', import.meta.url)

/** better-sqlite3's error again, as the callers (and the busy check) know it: its name, message and code. */
export const writerError = (f: WriterFailure): Error => Object.assign(new Error(f.message), { name: f.name, code: f.code })

/**
 * The thread that commits the SQLite group commit's batches (src/store/sqlite-writer-thread.ts). One batch
 * at a time. If the thread dies (an error in it, or it was ended), the batch in flight fails with a clear
 * `database` error (its writes may or may not be in the file: nothing of it was acknowledged, and the git
 * host redelivers) and the next commit starts a new thread.
 */
export function startSqliteWriter(path: string, onStart?: (thread: Worker) => void): SqliteWriter {
  let thread: Worker | undefined
  let inFlight: { id: number; resolve: (o: WriterOutcome[]) => void; reject: (e: unknown) => void } | undefined
  let nextId = 0
  let numbers = new Map<string, number>()
  const start = () => {
    numbers = new Map()
    const t = new Worker(THREAD_URL, { workerData: { path } })
    // An idle writer never keeps the process alive; a commit in flight does (ref() in commit()).
    t.unref()
    t.on('message', (reply: WriterReply) => {
      const waiting = inFlight
      if (waiting?.id !== reply.id) return
      inFlight = undefined
      t.unref()
      if ('failed' in reply) waiting.reject(writerError(reply.failed))
      else waiting.resolve(reply.outcomes)
    })
    const died = (why: string) => {
      if (thread !== t) return
      thread = undefined
      const waiting = inFlight
      inFlight = undefined
      waiting?.reject(new PrheraldError('database', `the database writer thread stopped (${why}); its last writes were not acknowledged`, {
        fix: 'the next write starts a new writer thread; if this repeats, check the database file and the server log',
      }))
    }
    t.on('error', (error) => died(error.message))
    t.on('exit', (code) => died(`exit code ${code}`))
    onStart?.(t)
    return t
  }
  return {
    commit(writes) {
      return new Promise((resolve, reject) => {
        const t = thread ?? (thread = start())
        const statements: Array<[number, string]> = []
        const numberOf = (sql: string) => numbers.get(sql) ?? (statements.push([numbers.size, sql]), numbers.set(sql, numbers.size).size - 1)
        const sent = writes.map((steps) => steps.map(([sql, params]): SentStep => [numberOf(sql), params]))
        inFlight = { id: ++nextId, resolve, reject }
        t.ref()
        t.postMessage({ id: nextId, statements, writes: sent } satisfies WriterRequest)
      })
    },
    async close() {
      const t = thread
      thread = undefined
      if (t) await t.terminate()
    },
  }
}
