import type { Provider } from '../../machines/pull-request-event.ts'
import { PrheraldError } from '../errors.ts'
import type { SqliteDatabase } from './open-database.ts'

const KEY = 'git_provider'

const hasTable = (db: SqliteDatabase, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined

/**
 * The provider the database serves: its record, or else the one its newest rows belong to (a database from
 * before the record existed); undefined for a database with neither. Reads only, so prherald-doctor can ask.
 */
export function databaseProvider(db: SqliteDatabase): Provider | undefined {
  if (hasTable(db, 'meta')) {
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(KEY) as { value: Provider } | undefined
    if (row) return row.value
  }
  const newest = (sql: string) => (db.prepare(sql).get() as { provider: Provider } | undefined)?.provider
  return (hasTable(db, 'deliveries') ? newest('SELECT provider FROM deliveries ORDER BY seq DESC LIMIT 1') : undefined)
    ?? (hasTable(db, 'slack_messages') ? newest('SELECT provider FROM slack_messages ORDER BY touched_at DESC LIMIT 1') : undefined)
}

export function providerMismatch(path: string, recorded: Provider, configured: Provider): PrheraldError {
  return new PrheraldError('database_provider', `the database ${path} serves git_provider ${recorded}, but the configuration says ${configured}`, {
    fix: `a provider change needs a new database (its rows would collide and silently suppress posts): point PRHERALD_DATABASE_URL / database.url at a new file, or set git_provider back to ${recorded}`,
  })
}

/**
 * Records the provider on a database that has no record yet (from its rows, or the configured one when it
 * has none), then refuses a configuration for the other provider. Needs migration 0002 applied.
 */
export function claimProvider(db: SqliteDatabase, path: string, configured: Provider): void {
  const recorded = databaseProvider(db) ?? configured
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(KEY, recorded)
  if (recorded !== configured) throw providerMismatch(path, recorded, configured)
}
