import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PrheraldError } from '../errors.ts'
import { forDialect, type Dialect } from './dialect.ts'
import { packageRoot } from '../package-root.ts'
import type { SqliteDatabase } from './open-database.ts'
import type { LogFields } from '../log/logger.ts'

export interface Migration {
  version: string
  name: string
  sql: string
}

export interface MigrationState {
  version: string
  name: string
  appliedAt: Date | undefined
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/

// What is left of a migration without its comments: nothing means the engine has no such migration.
const isEmpty = (sql: string) => sql.replace(/--.*$/gm, '').trim() === ''

/** The migration files in `dir`, in order, each with its number and name, whichever engine's statements it holds. */
function migrationFiles(dir: string): { file: string; version: string; name: string }[] {
  return readdirSync(dir).sort().flatMap((file) => {
    const [, version, name] = FILE.exec(file) ?? []
    return version === undefined || name === undefined ? [] : [{ file, version, name }]
  })
}

/**
 * The migrations, one source for both engines (docs/decisions.md), as `dialect` runs them. A file whose
 * statements are all the other engine's (`--sqlite:` lines) is not one of this engine's migrations.
 */
export function readMigrations(dir = join(packageRoot(), 'migrations'), dialect: Dialect = 'sqlite'): Migration[] {
  return migrationFiles(dir)
    .map(({ file, version, name }) => ({ version, name, sql: forDialect(readFileSync(join(dir, file), 'utf8'), dialect) }))
    .filter((m) => !isEmpty(m.sql))
}

/** The numbers of every migration file, whichever engine's its statements are. */
export function migrationFileNumbers(dir = join(packageRoot(), 'migrations')): Set<number> {
  return new Set(migrationFiles(dir).map((f) => Number(f.version)))
}

/** Ascending numbers as runs: [8, 22, 23, 24] is `0008`, `0022-0024`. */
function runs(numbers: readonly number[]): string[] {
  const pad = (n: number) => String(n).padStart(4, '0')
  const out: string[] = []
  for (let i = 0; i < numbers.length;) {
    let j = i
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++
    out.push(i === j ? pad(numbers[i]!) : `${pad(numbers[i]!)}-${pad(numbers[j]!)}`)
    i = j + 1
  }
  return out
}

/**
 * Why a list of migrations skips a number: `unused` are numbers no migration file has (numbers are taken when
 * work on a migration starts, and some were never used), `otherEngine` the migrations of the other database
 * engine only (a SQLite-only one on PostgreSQL). The start-up log and `prherald-migrate status` say so beside
 * the list, so that 0007 followed by 0009 is not read as a migration skipped.
 */
export function listGaps(listed: readonly Pick<Migration, 'version'>[], files = migrationFileNumbers()): { unused: string[]; otherEngine: string[] } {
  const numbers = listed.map((m) => Number(m.version)).sort((a, b) => a - b)
  const skipped: number[] = []
  for (let i = 1; i < numbers.length; i++) {
    for (let n = numbers[i - 1]! + 1; n < numbers[i]!; n++) skipped.push(n)
  }
  return { unused: runs(skipped.filter((n) => !files.has(n))), otherEngine: runs(skipped.filter((n) => files.has(n))) }
}

/** `numbers 0008 were never used by any migration, and 0004 is the other engine's only: nothing is missing`. */
export function gapsLine(gaps: { unused: string[]; otherEngine: string[] }): string | undefined {
  const parts = [
    ...(gaps.unused.length > 0 ? [`numbers ${gaps.unused.join(', ')} were never used by any migration`] : []),
    ...(gaps.otherEngine.length > 0 ? [`${gaps.otherEngine.join(', ')} ${gaps.otherEngine.length === 1 && !gaps.otherEngine[0]!.includes('-') ? 'is' : 'are'} the other database engine's only`] : []),
  ]
  return parts.length > 0 ? `${parts.join(', and ')}: nothing is missing` : undefined
}

/** What the start-up log says of the migrations it applied: each one, and why a number is not among them. */
export function appliedMigrationsFields(applied: readonly Migration[]): LogFields {
  const gaps = gapsLine(listGaps(applied))
  return { versions: applied.map((m) => `${m.version}_${m.name}`), ...(gaps ? { gaps } : {}) }
}

function ensureTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version TEXT PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
}

export function migrationStatus(db: SqliteDatabase, migrations = readMigrations()): MigrationState[] {
  ensureTable(db)
  const applied = new Map(
    db.prepare('SELECT version, applied_at FROM schema_migrations').all()
      .map((r) => { const row = r as { version: string; applied_at: number }; return [row.version, row.applied_at] }),
  )
  return migrations.map((m) => {
    const at = applied.get(m.version)
    return { version: m.version, name: m.name, appliedAt: at === undefined ? undefined : new Date(at) }
  })
}

/**
 * Applies pending migrations in order, each in its own transaction; returns the ones applied. `onApplied`
 * hears of each once committed (prherald-migrate's progress). Stopped part-way, the database is at the last
 * committed migration: an interrupted one's transaction never commits.
 */
export function migrateUp(db: SqliteDatabase, migrations = readMigrations(), now = Date.now, onApplied?: (m: Migration) => void): Migration[] {
  const pending = new Set(migrationStatus(db, migrations).filter((s) => !s.appliedAt).map((s) => s.version))
  const applied: Migration[] = []
  for (const m of migrations.filter((x) => pending.has(x.version))) {
    try {
      db.transaction(() => {
        db.exec(m.sql)
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, now())
      })()
    } catch (cause) {
      throw new PrheraldError('migration', `migration ${m.version}_${m.name} failed: ${(cause as Error).message}`, {
        cause,
        fix: 'the database was left at the previous migration; restore it from a backup or fix the file, then run prherald-migrate up',
      })
    }
    applied.push(m)
    onApplied?.(m)
  }
  return applied
}
