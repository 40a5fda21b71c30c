import type { PoolClient } from 'pg'
import { checkOut } from './check-out.ts'
import type { PostgresPool } from './postgres-pool.ts'

/**
 * Runs `work` in one transaction on one pooled connection: committed if it returns, rolled back if it
 * throws. A connection whose ROLLBACK fails, or that broke, is destroyed, not given back to the pool.
 */
export async function inPostgresTransaction<T>(pool: PostgresPool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const { client, release } = await checkOut(pool)
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch((e: Error) => { broken = e })
    throw error
  } finally {
    release(broken !== undefined)
  }
}
