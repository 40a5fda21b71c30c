import type { Provider } from '../../machines/pull-request-event.ts'
import type { SqliteDatabase } from './open-database.ts'

const hasTable = (db: SqliteDatabase, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined

/**
 * The hosts whose pull requests the database holds, from its rows (sorted); reads only, so prherald-doctor
 * can ask. A host taken out of the configuration keeps its rows: they are listed here, and nowhere else.
 */
export function databaseHosts(db: SqliteDatabase): Provider[] {
  const of = (table: string) => hasTable(db, table)
    ? (db.prepare(`SELECT DISTINCT provider FROM ${table}`).all() as Array<{ provider: Provider }>).map((r) => r.provider)
    : []
  return [...new Set([...of('slack_messages'), ...of('deliveries')])].sort()
}
