/**
 * One write at a time across the threads of the process (server.ack_thread: the acknowledging thread's SQLite
 * connection and the main thread's), as a cell in shared memory: 0 free, 1 taken. A writer that finds it
 * taken sleeps in Atomics.wait and is woken the moment the other commits, instead of meeting SQLITE_BUSY and
 * polling (SQLite's busy handler sleeps 1, 2, 5, 10 … 25 ms between looks: measured, a commit of the thread
 * then took twice as long on average, and 5 times as often over 20 ms; docs/performance.md). SQLite's own
 * lock stays the real one: a turn not had within `maxWaitMs` (the other thread ended while holding it) is
 * given up and the write goes ahead as it would without one.
 */
export type WriteTurn = Int32Array

export function createWriteTurn(): WriteTurn {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))
}

/** Takes the turn, waiting at most `maxWaitMs`; returns its release, or undefined when it was not had. */
export function takeWriteTurn(turn: WriteTurn, maxWaitMs: number): (() => void) | undefined {
  const until = Date.now() + maxWaitMs
  // "Atomics.wait() … verifies that the given position still contains a given value and if so sleeps,
  // awaiting a wake-up or a time-out" (MDN, Atomics.wait); Node allows it on the main thread.
  while (Atomics.compareExchange(turn, 0, 0, 1) !== 0) {
    const left = until - Date.now()
    if (left <= 0) return undefined
    Atomics.wait(turn, 0, 1, left)
  }
  return () => {
    Atomics.store(turn, 0, 0)
    Atomics.notify(turn, 0, 1)
  }
}
