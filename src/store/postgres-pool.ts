import pg from 'pg'
import { PrheraldError } from '../errors.ts'
import { redactUrl } from '../log/redact-url.ts'
import { scrubPostgresSecrets } from './postgres-url.ts'

export type PostgresPool = pg.Pool

/** Checked-out connections that broke while a caller had them (see watchCheckedOut). */
const broken = new WeakSet<pg.PoolClient>()

/** True when the connection broke while checked out: it must be destroyed, never pooled again. */
export const hasBroken = (client: pg.PoolClient): boolean => broken.has(client)

/**
 * pg stops listening for a connection's errors when it hands it out, a moment before the caller's own
 * listener is attached (check-out.ts, or pg's own pool.query): a connection that breaks in that moment (a
 * database restart, `pg_terminate_backend`) would be an unhandled 'error' event and end the process. This
 * listener covers every checked-out connection from its acquisition to its release, and remembers that it
 * broke, so the caller destroys it instead of pooling a connection that can no longer query.
 */
function watchCheckedOut(pool: pg.Pool): void {
  const guards = new WeakMap<pg.PoolClient, () => void>()
  pool.on('acquire', (client) => {
    const guard = () => { broken.add(client) }
    guards.set(client, guard)
    client.on('error', guard)
  })
  pool.on('release', (_error, client) => {
    const guard = guards.get(client)
    if (guard) client.off('error', guard)
  })
}

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
  watchCheckedOut(pool)
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
