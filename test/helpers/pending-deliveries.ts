import Database from 'better-sqlite3'
import { join } from 'node:path'

/** Deliveries acknowledged but not yet applied, read straight from the database file in `dir`. */
export function pendingDeliveries(dir: string): number {
  const db = new Database(join(dir, 'prherald.db'), { readonly: true })
  try {
    return (db.prepare('SELECT count(*) AS n FROM deliveries WHERE applied_at IS NULL').get() as { n: number }).n
  } finally {
    db.close()
  }
}
