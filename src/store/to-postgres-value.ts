import { PrheraldError } from '../errors.ts'

/** A target column as information_schema describes it. */
export interface PostgresColumn {
  /** information_schema.columns.data_type: `bigint`, `text`, `boolean`, `timestamp with time zone`, ... */
  type: string
  /** `ALWAYS` or `BY DEFAULT` for an identity column, else null. */
  identity: string | null
}

const INTEGER = new Set(['smallint', 'integer', 'bigint'])
const NUMBER = new Set(['real', 'double precision', 'numeric'])

/**
 * One SQLite value as its PostgreSQL column wants it. SQLite keeps times as unix-millisecond integers, flags
 * as 0/1, JSON as text: a BIGINT twin takes the number as it is, a timestamp twin a Date, a boolean twin a
 * boolean, json/jsonb the text. Anything that cannot be converted is an error naming the column, not a
 * silently different value.
 */
export function toPostgresValue(value: unknown, column: PostgresColumn, where: string): unknown {
  if (value === null) return null
  const bad = (why: string) => new PrheraldError('migration', `cannot copy ${where}: ${why}`, {
    fix: 'correct that row in the SQLite database (sqlite3 the file), then copy again; the target was left empty',
  })
  if (INTEGER.has(column.type)) {
    if (typeof value === 'bigint') return value.toString()
    if (typeof value === 'number' && Number.isInteger(value)) return value
    if (typeof value === 'string' && /^-?\d+$/.test(value)) return value
    throw bad(`${JSON.stringify(value)} is not an integer`)
  }
  if (NUMBER.has(column.type)) {
    if (typeof value === 'number' || typeof value === 'bigint') return value.toString()
    throw bad(`${JSON.stringify(value)} is not a number`)
  }
  if (column.type === 'boolean') {
    if (value === 0 || value === 1 || value === 0n || value === 1n) return Number(value) === 1
    throw bad(`${JSON.stringify(String(value))} is not 0 or 1`)
  }
  if (column.type.startsWith('timestamp')) {
    // Unix milliseconds, as every prherald time column in SQLite holds them.
    if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value))
    return value // text SQLite holds in ISO form is read by PostgreSQL itself
  }
  if (column.type === 'bytea') return Buffer.isBuffer(value) ? value : Buffer.from(String(value))
  // text, json, jsonb: the text as it is (SQLite's JSON is text already); a number in a text column as text.
  if (Buffer.isBuffer(value)) throw bad('a blob in a text column')
  return typeof value === 'string' ? value : String(value)
}
