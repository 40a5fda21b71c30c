import type { PoolClient } from 'pg'
import { PrheraldError } from '../errors.ts'
import { migrationStatus } from './migrations.ts'
import type { SqliteDatabase } from './open-database.ts'
import { postgresMigrateUp } from './postgres-migrations.ts'
import type { PostgresPool } from './postgres-pool.ts'
import { inPostgresTransaction } from './postgres-transaction.ts'
import { toPostgresValue, type PostgresColumn } from './to-postgres-value.ts'

export interface CopiedTable {
  table: string
  rows: number
}

export interface CopyDeps {
  /** The source, at the latest schema, with no server writing to it. */
  sqlite: SqliteDatabase
  /** The target: migrated up here, then filled in one transaction if it is empty. */
  pool: PostgresPool
  /** Rows per INSERT (capped so that one statement stays under PostgreSQL's 65535 parameters). */
  batchRows?: number
  /** Told of each batch of rows sent (prherald-migrate copy's progress; `sourceRows` is the total). */
  onRows?: (rows: number) => void
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

// Both stores keep their own migration bookkeeping: the target's is written by its own migrations.
const NOT_COPIED = new Set(['schema_migrations'])

/** The source's tables in the order they were created (parents before anything that could refer to them). */
function sqliteTables(db: SqliteDatabase): Array<{ table: string; columns: string[] }> {
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
    .all().map((r) => (r as { name: string }).name).filter((n) => !NOT_COPIED.has(n))
  return names.map((table) => ({
    table, columns: db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(table).map((r) => (r as { name: string }).name),
  }))
}

async function postgresColumns(client: PoolClient): Promise<Map<string, Map<string, PostgresColumn>>> {
  const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; identity_generation: string | null }>(
    'SELECT table_name, column_name, data_type, identity_generation FROM information_schema.columns WHERE table_schema = current_schema()')
  const tables = new Map<string, Map<string, PostgresColumn>>()
  for (const r of rows) {
    const columns = tables.get(r.table_name) ?? new Map<string, PostgresColumn>()
    columns.set(r.column_name, { type: r.data_type, identity: r.identity_generation })
    tables.set(r.table_name, columns)
  }
  return tables
}

/** How many rows the copy will send: the total its progress counts towards. */
export function sourceRows(db: SqliteDatabase): number {
  return sqliteTables(db).reduce((n, { table }) => n + Number((db.prepare(`SELECT count(*) AS n FROM ${quote(table)}`).get() as { n: number }).n), 0)
}

/**
 * Rows already in the target. `meta` rows equal to the source's do not count: `prherald-migrate up` and
 * the server write the database's git provider there, and that is the same fact the copy would bring.
 */
async function occupied(client: PoolClient, sqlite: SqliteDatabase, tables: readonly string[]): Promise<string[]> {
  const found: string[] = []
  for (const table of tables) {
    if (table === 'meta') {
      const source = new Map(sqlite.prepare('SELECT key, value FROM meta').all().map((r) => [(r as { key: string }).key, (r as { value: string }).value]))
      const { rows } = await client.query<{ key: string; value: string }>('SELECT key, value FROM meta')
      const differing = rows.filter((r) => source.get(r.key) !== r.value)
      if (differing.length > 0) found.push(`meta (${differing.map((r) => r.key).join(', ')})`)
      continue
    }
    const n = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${quote(table)}`)).rows[0]?.n ?? 0)
    if (n > 0) found.push(`${table} (${n} rows)`)
  }
  return found
}

/**
 * `prherald-migrate copy`: every table of a SQLite database into an empty PostgreSQL one, whatever tables
 * the migrations have made by now (read from SQLite's catalogue, not listed here), converting each value
 * to its PostgreSQL column's type. One transaction: the target ends up with all of it or none of it.
 */
export async function copyToPostgres({ sqlite, pool, batchRows = 500, onRows }: CopyDeps): Promise<CopiedTable[]> {
  const pending = migrationStatus(sqlite).filter((s) => !s.appliedAt)
  if (pending.length > 0) {
    throw new PrheraldError('migration', `the SQLite database ${sqlite.name} is not at the latest schema (pending: ${pending.map((p) => `${p.version}_${p.name}`).join(', ')})`, {
      fix: `run prherald-migrate up with PRHERALD_DATABASE_URL=file:${sqlite.name} first, then copy again`,
    })
  }
  await postgresMigrateUp(pool)
  const tables = sqliteTables(sqlite)
  return inPostgresTransaction(pool, async (client) => {
    const target = await postgresColumns(client)
    for (const { table, columns } of tables) {
      const missing = target.has(table) ? columns.filter((c) => !target.get(table)!.has(c)) : ['(the table itself)']
      if (missing.length > 0) {
        throw new PrheraldError('migration', `the PostgreSQL database has no ${table}.${missing.join(`, ${table}.`)} that the SQLite database has`, {
          fix: 'the two schemas come from the same prherald release: run this release\'s prherald-migrate copy (it migrates the target up first); a table SQLite has and PostgreSQL lacks is a bug to report',
        })
      }
    }
    const full = await occupied(client, sqlite, tables.map((t) => t.table))
    if (full.length > 0) {
      throw new PrheraldError('copy_target_not_empty', `the PostgreSQL database already holds data: ${full.join(', ')}; nothing was copied`, {
        fix: 'copy into a new, empty database (CREATE DATABASE prherald_new), or drop this one\'s prherald tables first if you are sure nothing in it is needed',
      })
    }
    const copied: CopiedTable[] = []
    for (const { table, columns } of tables) {
      const types = columns.map((c) => target.get(table)!.get(c)!)
      const overriding = types.some((t) => t.identity === 'ALWAYS') ? ' OVERRIDING SYSTEM VALUE' : ''
      const perBatch = Math.max(1, Math.min(batchRows, Math.floor(60_000 / columns.length)))
      // meta rows the target already has (equal to these, or occupied() would have refused) stay as they are.
      const conflict = table === 'meta' ? ' ON CONFLICT DO NOTHING' : ''
      let rows = 0
      let batch: unknown[][] = []
      const flush = async () => {
        if (batch.length === 0) return
        const values = batch.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ')
        await client.query(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')})${overriding} VALUES ${values}${conflict}`, batch.flat())
        rows += batch.length
        onRows?.(batch.length)
        batch = []
      }
      for (const row of sqlite.prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`).raw().iterate() as Iterable<unknown[]>) {
        batch.push(row.map((v, i) => toPostgresValue(v, types[i]!, `${table}.${columns[i]}`)))
        if (batch.length >= perBatch) await flush()
      }
      await flush()
      // An identity column given its values keeps its sequence behind them: move it past the largest.
      for (const [i, column] of columns.entries()) {
        if (!types[i]!.identity) continue
        await client.query(`SELECT setval(pg_get_serial_sequence($1, $2), (SELECT coalesce(max(${quote(column)}), 0) + 1 FROM ${quote(table)}), false)`, [quote(table), column])
      }
      copied.push({ table, rows })
    }
    return copied
  })
}
