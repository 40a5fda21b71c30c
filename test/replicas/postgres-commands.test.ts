import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readPostgresMigrations } from '../../src/store/postgres-migrations.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { runCliAsync, type CliResult } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const UNUSED = /^numbers 0008, .+ were never used by any migration, and 0004 is the other database engine's only: nothing is missing$/

/**
 * prherald-migrate up/status and prherald-doctor on a PostgreSQL database (issue 17.1): the same commands
 * as for SQLite, the password given through PGPASSWORD and never printed.
 */

const h = usePrherald({ config: { mappings: { acme: { api: { channel: 'C0123456789' } } } } })
let database: TestDatabase
beforeEach(async () => {
  database = await createTestDatabase()
})
afterEach(async () => {
  await database.drop()
})

function credentials(): { url: string; password: string } {
  const url = new URL(database.url)
  const password = decodeURIComponent(url.password)
  url.password = ''
  return { url: url.toString(), password }
}
const run = (cli: 'migrate' | 'doctor', args: string[]) => {
  const { url, password } = credentials()
  return runCliAsync(cli, args, testEnv(h.dir.path, 'github', { PRHERALD_DATABASE_URL: url, PGPASSWORD: password }), h.dir.path)
}
const shown = (result: CliResult) => {
  const output = result.stdout + result.stderr
  expect(output).not.toContain(credentials().password)
  return output
}
const versions = readPostgresMigrations().map((m) => `${m.version}_${m.name}`)

describe('on PostgreSQL', () => {
  it('prherald-migrate status lists every migration pending, up applies them and claims the provider, status then lists them applied', async () => {
    const before = await run('migrate', ['status'])
    expect(before.status).toBe(0)
    // Each migration, then the numbers none has (gaps are numbers never used, not migrations skipped).
    expect(shown(before).trim().split('\n')).toEqual([...versions.map((v) => `pending  ${v}`), expect.stringMatching(UNUSED)])

    const up = await run('migrate', ['up'])
    expect(up.status).toBe(0)
    expect(shown(up).trim().split('\n')).toEqual([...versions.map((v) => `applied  ${v}`), `migrating: ${versions.length}/${versions.length} migrations (100%), about 0 s left`])
    expect(shown(await run('migrate', ['up'])).trim()).toBe('database is up to date')

    const after = await run('migrate', ['status'])
    expect(shown(after).trim().split('\n').slice(0, -1).map((l) => l.replace(/\s+\S+$/, ''))).toEqual(versions.map((v) => `applied  ${v}`))
  })

  it('prherald-doctor reads the database without changing it, and reports the migrations and the hosts', async () => {
    const fresh = await run('doctor', [])
    expect(shown(fresh)).toMatch(new RegExp(`SKIP\\s+migrations\\s+postgres://[^\\s]*@127\\.0\\.0\\.1:\\d+/\\w+\\s+0 applied, ${versions.length} pending`))
    // Reading changed nothing: the migrations are still all pending.
    expect(shown(await run('migrate', ['status'])).trim().split('\n')).toEqual([...versions.map((v) => `pending  ${v}`), expect.stringMatching(UNUSED)])

    expect((await run('migrate', ['up'])).status).toBe(0)
    const migrated = await run('doctor', [])
    const output = shown(migrated)
    expect(output).toMatch(/OK\s+migrations\s+\S+\s+all \d+ applied/)
    expect(output).toMatch(/OK\s+hosts\s+\S+\s+no pull request yet; serves github/)
    expect(output).toMatch(/OK\s+intake\s+\S+\s+0 deliveries waiting/)
    expect(output).toMatch(/OK\s+database\s+\S+\s+PostgreSQL: replicas may share it/)
  })

  it('prherald-migrate up takes a database one host used for another host (issue 34: hosts share a database)', async () => {
    expect((await run('migrate', ['up'])).status).toBe(0)
    writeConfig(h.dir.path, { git_provider: 'bitbucket', mappings: { ws: { repo: { channel: 'C0123456789' } } } })
    const { url, password } = credentials()
    const result = await runCliAsync('migrate', ['up'], testEnv(h.dir.path, 'bitbucket', { PRHERALD_DATABASE_URL: url, PGPASSWORD: password }), h.dir.path)
    expect(result.status, shown(result)).toBe(0)
  })

  it('a wrong password is a clear start-up error that prints neither password', async () => {
    const { url } = credentials()
    const wrong = 'Wrong-Pw-77c1e0'
    const result = await runCliAsync('migrate', ['status'], testEnv(h.dir.path, 'github', { PRHERALD_DATABASE_URL: url, PGPASSWORD: wrong }), h.dir.path)
    expect(result.status).toBe(1)
    const output = shown(result)
    expect(output).not.toContain(wrong)
    expect(output).toContain('cannot connect to PostgreSQL at postgres://')
    expect(output).toContain('PRHERALD_DATABASE_URL or PGUSER / PGPASSWORD')
  })
})
