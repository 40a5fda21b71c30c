import { existsSync } from 'node:fs'
import { redactUrl } from '../log/redact-url.ts'
import { databasePathFromUrl } from '../config/parse-values.ts'
import { PrheraldError } from '../errors.ts'
import { copyToPostgres, sourceRows } from '../store/copy-to-postgres.ts'
import { createProgress } from '../log/progress.ts'
import { openDatabase } from '../store/open-database.ts'
import { openPostgresPool } from '../store/postgres-pool.ts'
import { isPostgresUrl } from '../store/postgres-url.ts'
import { acquireServerLock } from '../store/server-lock.ts'

export interface MigrateCopyOptions {
  from?: unknown
  to?: unknown
}

const usage = (message: string, fix: string) => new PrheraldError('usage', message, { fix })

/**
 * `prherald-migrate copy --from file:… --to postgres://…`: moves a single server's SQLite database into an
 * empty PostgreSQL one (docs/scaling.md). The SQLite file's server lock is held for the whole copy, so a
 * server still running on it is a clear refusal, not a copy that misses its last deliveries.
 */
export async function migrateCopy(options: MigrateCopyOptions, write: (line: string) => void): Promise<void> {
  const from = typeof options.from === 'string' ? options.from : ''
  const to = typeof options.to === 'string' ? options.to : ''
  const path = from ? databasePathFromUrl(from, process.cwd()) : undefined
  if (!path || isPostgresUrl(from)) throw usage(`--from ${redactUrl(from) || '(missing)'} is not a SQLite file URL`, 'give the SQLite database to copy, e.g. --from file:./data/prherald.db')
  if (!existsSync(path)) throw usage(`--from ${from}: there is no file ${path}`, 'give the path of the SQLite database the server used (database.url in its config.yaml)')
  if (!isPostgresUrl(to)) throw usage(`--to ${redactUrl(to) || '(missing)'} is not a PostgreSQL URL`, 'give the empty PostgreSQL database to fill, e.g. --to postgres://prherald@db.internal:5432/prherald (the password in PGPASSWORD)')
  const lock = acquireServerLock(path)
  try {
    const sqlite = openDatabase(path)
    try {
      const pool = await openPostgresPool({
        url: to, maxConnections: 2,
        onIdleError: (message) => write(`warning: PostgreSQL connection lost: ${message}`),
      })
      try {
        // One transaction: Ctrl-C (or a lost connection) before the commit leaves the target as empty as it was.
        const progress = createProgress('copying', { unit: 'rows', total: sourceRows(sqlite) })
        const copied = await copyToPostgres({ sqlite, pool, onRows: (n) => progress.advance(n) })
        progress.finish()
        const width = Math.max(...copied.map((c) => c.table.length))
        for (const c of copied) write(`copied  ${c.table.padEnd(width)}  ${String(c.rows).padStart(8)} rows`)
        write(`copy finished: ${copied.reduce((n, c) => n + c.rows, 0)} rows in ${copied.length} tables from ${path} to ${redactUrl(to)}`)
      } finally {
        await pool.end()
      }
    } finally {
      sqlite.close()
    }
  } finally {
    lock.release()
  }
}
