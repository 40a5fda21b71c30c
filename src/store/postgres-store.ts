import type { PoolClient } from 'pg'
import { createStore } from './create-store.ts'
import type { Statement } from './dialect.ts'
import type { PostgresPool } from './postgres-pool.ts'
import { createPostgresSharedWork } from './postgres-shared-work.ts'
import { inPostgresTransaction } from './postgres-transaction.ts'
import type { Param, Step, StoreDriver } from './store-driver.ts'
import type { Store } from './store.ts'

export interface PostgresStoreDeps {
  pool: PostgresPool
  now?: () => number
  /** The per-pull-request locks' own pool (src/store/postgres-shared-work.ts); the store ends it too. */
  lockPool?: PostgresPool
}

/**
 * The PostgreSQL backend: the one Store (src/store/create-store.ts) over pg. A write of one statement runs
 * on a pooled connection and commits on its own; several run in one transaction on one connection.
 * SQLite's group commit is not needed here: the server lets concurrent commits share a WAL flush. The pool
 * belongs to the store: `close()` ends it.
 */
export function createPostgresStore({ pool, now = Date.now, lockPool }: PostgresStoreDeps): Store {
  let closed: Promise<void> | undefined
  const changes = async (client: Pick<PoolClient, 'query'>, [s, params]: Step) => (await client.query(s.postgres, [...params])).rowCount ?? 0
  const driver: StoreDriver = {
    async read<Row>(s: Statement, params: readonly Param[] = []) {
      return (await pool.query(s.postgres, [...params])).rows as Row[]
    },
    async write(steps) {
      if (steps.length === 1) return [await changes(pool, steps[0]!)]
      return inPostgresTransaction(pool, async (client) => {
        const counts: number[] = []
        for (const step of steps) counts.push(await changes(client, step))
        return counts
      })
    },
    close() {
      // pool.end() throws when called twice; SQLite's close is idempotent, so this one is too.
      closed ??= Promise.all([pool.end(), lockPool?.end()]).then(() => undefined)
      return closed
    },
  }
  // Replicas: per-pull-request locks and delivery leases, in a file of their own.
  const sharedWork = createPostgresSharedWork({ pool, lockPool, closing: () => closed !== undefined })
  return createStore({ driver, sharedWork, now })
}
