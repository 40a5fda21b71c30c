import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { appliedMigrationsFields, gapsLine, listGaps, migrateUp, migrationStatus, readMigrations } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { PrheraldError } from '../../src/errors.ts'
import { runCli } from '../helpers/spawn-prherald.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => { dir = makeTempDir() })
afterEach(() => dir.remove())

describe('migrations', () => {
  it('says why a list skips a number: never used by any migration, or the other engine\'s only', () => {
    const v = (version: string) => ({ version, name: 'x', sql: '' })
    const files = new Set([1, 2, 3, 4, 5, 7, 9, 21, 45])
    expect(listGaps([v('0001'), v('0002'), v('0007'), v('0009'), v('0021'), v('0045')], files))
      .toEqual({ unused: ['0006', '0008', '0010-0020', '0022-0044'], otherEngine: ['0003-0005'] })
    expect(listGaps([v('0001'), v('0002')], files)).toEqual({ unused: [], otherEngine: [] })
    expect(gapsLine({ unused: ['0008'], otherEngine: ['0004'] })).toBe('numbers 0008 were never used by any migration, and 0004 is the other database engine\'s only: nothing is missing')
    expect(gapsLine({ unused: [], otherEngine: [] })).toBeUndefined()
    expect(appliedMigrationsFields([v('0001'), v('0002')])).toEqual({ versions: ['0001_x', '0002_x'] })
    // The real files: 0008 is no migration at all.
    expect(appliedMigrationsFields([v('0007'), v('0009')])).toEqual({
      versions: ['0007_x', '0009_x'], gaps: 'numbers 0008 were never used by any migration: nothing is missing',
    })
  })

  it('creates the data directory, applies every migration once, in order, and records them', () => {
    const path = join(dir.path, 'nested/data/prherald.db')
    const db = openDatabase(path)
    expect(existsSync(join(dir.path, 'nested/data'))).toBe(true)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    const all = readMigrations()
    expect(all.map((m) => m.version)).toEqual([...all.map((m) => m.version)].sort())
    expect(migrateUp(db).map((m) => m.version)).toEqual(all.map((m) => m.version))
    expect(migrateUp(db)).toEqual([])
    expect(migrationStatus(db).every((s) => s.appliedAt instanceof Date)).toBe(true)
    const columns = db.prepare("SELECT name FROM pragma_table_info('slack_messages')").all().map((r) => (r as { name: string }).name)
    expect(columns).toEqual(expect.arrayContaining(['provider', 'repository', 'pr_number', 'channel', 'ts', 'state', 'created_at', 'touched_at']))
    db.close()
  })

  it('rolls back a failing migration and leaves it pending', () => {
    const migrationsDir = join(dir.path, 'migrations')
    mkdirSync(migrationsDir)
    writeFileSync(join(migrationsDir, '0001_good.sql'), 'CREATE TABLE a (x INTEGER);')
    writeFileSync(join(migrationsDir, '0002_bad.sql'), 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);')
    const db = openDatabase(join(dir.path, 'db.sqlite'))
    const migrations = readMigrations(migrationsDir)
    expect(() => migrateUp(db, migrations)).toThrow(PrheraldError)
    const status = migrationStatus(db, migrations)
    expect(status.map((s) => [s.version, Boolean(s.appliedAt)])).toEqual([['0001', true], ['0002', false]])
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'b'").get()).toEqual({ n: 0 })
    db.close()
  })

  it('prherald-migrate status lists pending, up applies, status then lists applied', () => {
    writeConfig(dir.path, { git_provider: 'github', mappings: {} })
    const env = testEnv(dir.path, 'github')
    new Database(join(dir.path, 'prherald.db')).close()
    const before = runCli('migrate', ['status'], env)
    expect(before.status).toBe(0)
    expect(before.stdout).toMatch(/^pending {2}0001_initial$/m)
    const up = runCli('migrate', ['up'], env)
    expect(up.status).toBe(0)
    expect(up.stdout).toContain('applied  0001_initial')
    expect(runCli('migrate', ['up'], env).stdout).toContain('database is up to date')
    expect(runCli('migrate', ['status'], env).stdout).toMatch(/^applied {2}0001_initial {2}\d{4}-\d\d-\d\dT/m)
    expect(runCli('migrate', ['status'], env).stdout).toMatch(/^numbers 0008, .+ were never used by any migration: nothing is missing$/m)
  })

  it('from an empty directory, status and doctor report no database yet and create nothing; up creates data/ and the database', () => {
    // The default database, file:./data/prherald.db, relative to the working directory: nothing there yet.
    writeConfig(dir.path, { git_provider: 'github', mappings: {} })
    const env = { PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml') }
    const status = runCli('migrate', ['status'], env, dir.path)
    expect(status.stderr).toBe('')
    expect(status.stdout).toBe('no database yet at file:./data/prherald.db: prherald-server creates it (and its directory) at start-up, as does prherald-migrate up\n')
    expect(status.status).toBe(0)
    expect(readdirSync(dir.path)).toEqual(['config.yaml'])
    const doctor = runCli('doctor', [], env, dir.path)
    expect(doctor.stdout).toMatch(/^\s*SKIP\s+file\s+\S*data\/prherald\.db\s+not created yet; the server creates it and its directory at start-up/m)
    expect(readdirSync(dir.path)).toEqual(['config.yaml'])

    const up = runCli('migrate', ['up'], env, dir.path)
    // Not a terminal: the progress is plain lines on stderr, the last one when every migration is applied.
    const applied = up.stdout.match(/^applied {2}/gm)?.length
    expect(up.stderr).toBe(`migrating: ${applied}/${applied} migrations (100%), about 0 s left\n`)
    expect(up.stdout).toContain('applied  0001_initial')
    expect(readdirSync(join(dir.path, 'data'))).toContain('prherald.db')
    expect(runCli('migrate', ['status'], env, dir.path).stdout).toMatch(/^applied {2}0001_initial {2}\d{4}-/m)
  })

  it('prherald-migrate fails with the config error and a non-zero exit when the config is bad', () => {
    writeFileSync(join(dir.path, 'config.yaml'), 'git_provider: svn\nmappings: {}\n')
    const result = runCli('migrate', ['status'], testEnv(dir.path, 'github'))
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('git_provider')
    expect(result.stderr).toContain(join(dir.path, 'config.yaml'))
  })
})
