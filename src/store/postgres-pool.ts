import pg from 'pg'
import { PrheraldError } from '../errors.ts'
import { redactUrl } from '../log/redact-url.ts'
import { scrubPostgresSecrets } from './postgres-url.ts'

export type PostgresPool = pg.Pool

export interface OpenPostgresPoolDeps {
  /** `postgres://` or `postgresql://`; user and password may instead come from the standard PG* variables. */
  url: string
  /** Most connections this process holds; pg's default is 10. */
  maxConnections?: number
  /** Secret values given apart from the url (the PGPASSWORD the driver reads itself) to keep out of messages. */
  secrets?: readonly string[]
  /**
   * An idle connection broke (the server restarted, a proxy cut it). The pool drops that connection and
   * the next query opens a new one, so this is a warning, never a crash. The message is already scrubbed.
   */
  onIdleError: (message: string) => void
}

/** Opens a pool and proves it with one round trip, so a wrong URL fails at start-up, not at the first delivery. */
export async function openPostgresPool(deps: OpenPostgresPoolDeps): Promise<PostgresPool> {
  const where = redactUrl(deps.url)
  let pool: pg.Pool
  try {
    pool = new pg.Pool({ connectionString: deps.url, max: deps.maxConnections ?? 10 })
  } catch (cause) {
    throw new PrheraldError('database', `cannot use the PostgreSQL url ${where}: ${scrubPostgresSecrets((cause as Error).message, deps.url, deps.secrets)}`, {
      fix: 'write database.url as postgres://host:5432/dbname and give the user and password through PRHERALD_DATABASE_URL or PGUSER / PGPASSWORD',
    })
  }
  pool.on('error', (error) => deps.onIdleError(scrubPostgresSecrets(error.message, deps.url, deps.secrets)))
  try {
    await pool.query('SELECT 1')
  } catch (cause) {
    await pool.end().catch(() => undefined)
    // The driver's error is not kept as `cause`: nothing guarantees what it holds, and causes get printed.
    throw new PrheraldError('database', `cannot connect to PostgreSQL at ${where}: ${scrubPostgresSecrets((cause as Error).message, deps.url, deps.secrets)}`, {
      fix: 'check that the server is up and reachable from here, that the database exists, and the user and password (PRHERALD_DATABASE_URL or PGUSER / PGPASSWORD)',
    })
  }
  return pool
}
