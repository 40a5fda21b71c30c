import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { PrheraldError } from '../errors.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { readMigrations, type Migration } from './migrations.ts'

/** The migration that adds `parked_at`: before it, nothing can be parked (and the column is not there to count). */
export const PARKED_MIGRATION = '0012_parked_deliveries'

export interface DatabaseReport {
  migrations: { applied: string[]; pending: string[]; unknown: string[] }
  /** undefined until the migration creating the table is applied. */
  messages: number | undefined
  /** Of those, rows without a Slack message (NO_MESSAGE in store.ts: pull requests that ended before they were announced). */
  withoutMessage: number | undefined
  /** Deliveries acknowledged but not yet applied: replayed at the next start. */
  waiting: number | undefined
  /** Of those, parked after too many failed batches (migration 0012); undefined before it. */
  parked: number | undefined
  /** The hosts whose pull requests the database holds (from its rows); none for an unused one. */
  hosts: Provider[]
  /** Linked accounts per key id they are sealed under (talk-back); none before the table exists. */
  linkedKeyIds: Array<{ keyId: string; links: number }>
}

/** What either backend's inspection reads through: the tables there are (by name), and a query's rows. */
export interface DatabaseReader {
  tables: ReadonlySet<string>
  rows<Row>(sql: string): Promise<Row[]>
}

/** The report both backends give, from their tables; `migrations` are this version's. */
export async function databaseReport(read: DatabaseReader, migrations: readonly Migration[]): Promise<DatabaseReport> {
  const { tables } = read
  const known = migrations.map((m) => `${m.version}_${m.name}`)
  const appliedVersions = tables.has('schema_migrations')
    ? (await read.rows<{ version: string; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version')).map((r) => `${r.version}_${r.name}`)
    : []
  // pg returns a count as a string.
  const count = async (table: string, where = '') =>
    tables.has(table) ? Number((await read.rows<{ n: number | string }>(`SELECT count(*) AS n FROM ${table} ${where}`))[0]?.n ?? 0) : undefined
  const hostsOf = async (table: string) =>
    tables.has(table) ? (await read.rows<{ provider: Provider }>(`SELECT DISTINCT provider FROM ${table}`)).map((r) => r.provider) : []
  return {
    migrations: {
      applied: appliedVersions.filter((v) => known.includes(v)),
      pending: known.filter((v) => !appliedVersions.includes(v)),
      unknown: appliedVersions.filter((v) => !known.includes(v)),
    },
    messages: await count('slack_messages'),
    withoutMessage: await count('slack_messages', "WHERE ts = ''"),
    waiting: await count('deliveries', 'WHERE applied_at IS NULL AND parked_at IS NULL'),
    parked: appliedVersions.includes(PARKED_MIGRATION) ? await count('deliveries', 'WHERE applied_at IS NULL AND parked_at IS NOT NULL') : undefined,
    hosts: [...new Set([...await hostsOf('slack_messages'), ...await hostsOf('deliveries')])].sort(),
    linkedKeyIds: tables.has('linked_accounts')
      ? (await read.rows<{ key_id: string; links: number | string }>('SELECT key_id, COUNT(*) AS links FROM linked_accounts GROUP BY key_id')).map((r) => ({ keyId: r.key_id, links: Number(r.links) }))
      : [],
  }
}

/**
 * Reads the database without changing it, for prherald-doctor: opened read-only, never created, never
 * migrated. undefined when the file does not exist yet (the server creates it).
 */
export async function inspectDatabase(path: string): Promise<DatabaseReport | undefined> {
  if (!existsSync(path)) return undefined
  let db: Database.Database
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
  } catch (cause) {
    throw new PrheraldError('database', `cannot open the database at ${path}: ${(cause as Error).message}`, {
      cause, fix: 'check that the file is readable by this user and is a SQLite database',
    })
  }
  try {
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => (r as { name: string }).name))
    return await databaseReport({ tables, rows: async <Row>(sql: string) => db.prepare(sql).all() as Row[] }, readMigrations())
  } catch (cause) {
    throw new PrheraldError('database', `cannot read the database at ${path}: ${(cause as Error).message}`, {
      cause, fix: 'check that the file is a prherald database; restore it from a backup if it is damaged',
    })
  } finally {
    db.close()
  }
}
