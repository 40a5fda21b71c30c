/**
 * How far a long command is (migrating a large database, copying it to PostgreSQL, reconciling thousands of
 * repositories, building a bench's history): on a terminal one bar redrawn in place with the counts and the
 * time left; otherwise (a log, a pipe, CI) one plain line every few seconds, so a log is not flooded and a
 * silent command is not mistaken for a hung one. It only reports: stopping safely is the command's own part.
 */
export interface Progress {
  /** `done` more units finished. */
  advance(done?: number): void
  /** Prints the last state (a bar ends its line); nothing more is printed after. */
  finish(): void
}

export interface ProgressOptions {
  /** What is counted, such as `rows` or `repositories`. */
  unit: string
  /** How many in all; 0 or less when not known (no bar, no time left). */
  total: number
  /** Where the lines go: process.stderr by default, so the command's own output stays clean. */
  stream?: Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean; columns?: number }
  /** How often a non-terminal gets a line (default 5 s); a terminal is redrawn at most every 100 ms. */
  everyMs?: number
  now?: () => number
}

const BAR_WIDTH = 24

const seconds = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000))
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`
}

/** A progress report for `label` (what is being done, such as `migrating`). */
export function createProgress(label: string, options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr
  const now = options.now ?? Date.now
  const tty = stream.isTTY === true
  const everyMs = tty ? 100 : options.everyMs ?? 5000
  const started = now()
  let done = 0
  let printedAt = started
  let finished = false

  const describe = (): string => {
    const elapsed = now() - started
    const counts = options.total > 0 ? `${done}/${options.total} ${options.unit}` : `${done} ${options.unit}`
    if (options.total <= 0 || done === 0) return `${label}: ${counts}, ${seconds(elapsed)} so far`
    const share = Math.min(1, done / options.total)
    const left = done >= options.total ? 0 : (elapsed / done) * (options.total - done)
    return `${label}: ${counts} (${Math.floor(share * 100)}%), about ${seconds(left)} left`
  }
  const bar = (): string => {
    const share = options.total > 0 ? Math.min(1, done / options.total) : 0
    const filled = Math.round(share * BAR_WIDTH)
    return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${describe()}`
  }
  const print = () => {
    printedAt = now()
    if (tty) stream.write(`\r${bar().slice(0, (stream.columns ?? 120) - 1)}\x1b[K`)
    else stream.write(`${describe()}\n`)
  }

  return {
    advance(n = 1) {
      if (finished) return
      done += n
      if (now() - printedAt >= everyMs) print()
    },
    finish() {
      if (finished) return
      finished = true
      print()
      if (tty) stream.write('\n')
    },
  }
}
