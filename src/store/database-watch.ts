import { statSync } from 'node:fs'
import type { Logger } from '../log/logger.ts'

/** `deleted`: no file at the path any more; `replaced`: another file stands there now. */
export type DatabaseState = 'ok' | 'deleted' | 'replaced'

export interface DatabaseWatchDeps {
  path: string
  logger: Logger
  /** How often the path is compared with the opened file between commits; default 15 s (every commit compares too). */
  intervalMs?: number
}

export interface DatabaseWatch {
  state(): DatabaseState
  /**
   * Compares the path with the opened file now (one stat, a few µs) and returns the state: the group
   * commit asks before every commit, so no delivery is acknowledged into a file that is gone.
   */
  verify(): DatabaseState
  stop(): void
}

export const DATABASE_CHECK_MS = 15_000

const identity = (path: string): string | undefined => {
  try {
    const s = statSync(path)
    return `${s.dev}:${s.ino}`
  } catch {
    return undefined
  }
}

const WHAT: Record<Exclude<DatabaseState, 'ok'>, string> = {
  deleted: 'the database file was deleted while the server runs',
  replaced: 'the database file was replaced by another file while the server runs',
}

/**
 * Notices when the SQLite file the server opened is no longer the file at its path. SQLite keeps writing to
 * the opened file (unlinked or not) without a word, and every acknowledged delivery would vanish with it at
 * the next restart; the service stops taking deliveries instead (readyz 503) and says what to do. The file
 * is identified by device and inode, read when the watch starts, right after the database was opened.
 */
export function watchDatabaseFile(deps: DatabaseWatchDeps): DatabaseWatch {
  const opened = identity(deps.path)
  let state: DatabaseState = 'ok'
  const check = (): DatabaseState => {
    const now = identity(deps.path)
    const next: DatabaseState = now === opened ? 'ok' : now === undefined ? 'deleted' : 'replaced'
    if (next === state) return state
    state = next
    if (next === 'ok') {
      deps.logger.info('the database file is back at its path; taking deliveries again', { database: deps.path })
      return state
    }
    deps.logger.error(WHAT[next], {
      database: deps.path, database_state: next,
      fix: 'deliveries are refused with 503 (the git host keeps them for redelivery) and /readyz answers 503; stop prherald, put the database file back (or restore it from a backup), then start prherald again. Starting on an empty database would announce every open pull request again',
    })
    return state
  }
  const timer = opened === undefined ? undefined : setInterval(check, deps.intervalMs ?? DATABASE_CHECK_MS)
  timer?.unref()
  return { state: () => state, verify: () => (opened === undefined ? state : check()), stop: () => clearInterval(timer) }
}
