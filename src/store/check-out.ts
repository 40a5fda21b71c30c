import type { PoolClient } from 'pg'
import { hasBroken, type PostgresPool } from './postgres-pool.ts'

export interface CheckedOut {
  client: PoolClient
  /** Aborted when the connection broke (the server restarted, a failover, pg_terminate_backend). */
  lost: AbortSignal
  /** Gives the connection back; a broken one (or `destroy`) is closed instead of pooled. */
  release(destroy?: boolean): void
}

/**
 * A connection taken out of the pool, with a listener for the `error` event pg emits when the connection
 * drops. The pool listens only while a connection is idle in it: a checked-out connection that drops with
 * nobody listening is an unhandled 'error' event, which ends the process. Here it only marks the
 * connection lost: its running query fails on its own, and the holder decides what a loss means.
 */
export async function checkOut(pool: PostgresPool): Promise<CheckedOut> {
  const client = await pool.connect()
  const lost = new AbortController()
  const onError = (error: Error) => lost.abort(error)
  client.on('error', onError)
  // It may have broken between pg handing it out and the listener above (postgres-pool.ts).
  if (hasBroken(client)) lost.abort(new Error('the connection broke as it was checked out'))
  let released = false
  return {
    client,
    lost: lost.signal,
    release(destroy = false) {
      if (released) return
      released = true
      // Kept on a broken connection: pg may emit a second error on it while it closes.
      if (!lost.signal.aborted) client.off('error', onError)
      client.release(destroy || lost.signal.aborted || hasBroken(client) ? true : undefined)
    },
  }
}
