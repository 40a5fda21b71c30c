/**
 * Where SQLite and PostgreSQL differ, in one table: every statement and migration is written once, with
 * `{word}` where the two engines need different text, and rendered once per engine at load time
 * (docs/decisions.md, "One statement for both stores").
 */
export type Dialect = 'sqlite' | 'postgres'

const WORDS: Readonly<Record<string, Readonly<Record<Dialect, string>>>> = {
  // Types. Times are unix milliseconds; PostgreSQL's INTEGER is 32 bits, SQLite's is up to 64.
  millis: { sqlite: 'INTEGER', postgres: 'BIGINT' },
  real: { sqlite: 'REAL', postgres: 'DOUBLE PRECISION' },
  seq: { sqlite: 'INTEGER PRIMARY KEY AUTOINCREMENT', postgres: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' },
  // Order text byte-wise as SQLite does, whatever the PostgreSQL database's locale.
  bytewise: { sqlite: '', postgres: ' COLLATE "C"' },
  // The strings of a JSON array parameter, one row each: a list bound as one value on both engines.
  json_texts: { sqlite: 'SELECT value FROM json_each(?)', postgres: 'SELECT json_array_elements_text(CAST(? AS json))' },
}

// A line `--sqlite: <sql>` is that engine's only (a comment to the other): where their histories differ.
const ONLY = /^([ \t]*)--(sqlite|postgres): ?(.*)$/gm

/** `text` as `dialect` runs it; an unknown `{word}` is an error here, at load time, not at the first query. */
export function forDialect(text: string, dialect: Dialect): string {
  return text
    .replace(ONLY, (_, indent: string, only: Dialect, sql: string) => (only === dialect ? `${indent}${sql}` : ''))
    .replace(/\{([a-z_]+)\}/g, (_, word: string) => {
      const entry = WORDS[word]
      if (!entry) throw new Error(`unknown dialect word {${word}} (src/store/dialect.ts)`)
      return entry[dialect]
    })
}

/**
 * A DELETE of at most `LIMIT ?` rows of `table` matching `where` (its last parameter the limit): the daily
 * cleanup deletes a year's rows a slice at a time, so that no one transaction holds the database (and, on
 * SQLite, the event loop) for long. SQLite names a row by its rowid; PostgreSQL by its ctid ("While there
 * is no LIMIT clause for DELETE, it is possible to get a similar effect ... a self-join on the system column
 * ctid is very efficient", postgresql.org/docs/current/sql-delete.html and sql-update.html), handed over as
 * an array so that the DELETE fetches each row by its ctid (a Tid Scan; test/store/query-plans.test.ts plans
 * it). A row updated meanwhile has a new ctid and is left for the next slice: rows are only aged out.
 */
export function deleteSlice(table: string, where: string): string {
  return [
    `DELETE FROM ${table} WHERE`,
    `--sqlite: rowid IN (SELECT rowid FROM ${table} WHERE ${where} LIMIT ?)`,
    `--postgres: ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ?))`,
  ].join('\n')
}

/** One statement, written once with `?` parameters, as each engine runs it (pg numbers them: $1, $2, ...). */
export interface Statement {
  name: string
  sqlite: string
  postgres: string
}

export function statement(name: string, sql: string): Statement {
  let n = 0
  return { name, sqlite: forDialect(sql, 'sqlite'), postgres: forDialect(sql, 'postgres').replace(/\?/g, () => `$${++n}`) }
}

/** A table of statements by name, each rendered for both engines once, at load time. */
export function statements<Name extends string>(sql: Readonly<Record<Name, string>>): Record<Name, Statement> {
  return Object.fromEntries(Object.entries<string>(sql).map(([name, text]) => [name, statement(name, text)])) as Record<Name, Statement>
}
