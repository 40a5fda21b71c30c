import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { Provider } from '../../machines/pull-request-event.ts'
import { isPrheraldError } from '../../src/errors.ts'
import { migrateUp, readMigrations } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** 11.11: the database records the git provider it serves, and a server for the other one refuses it. */
const h = usePrherald()

const dbFile = () => join(h.dir.path, 'prherald.db')
const configure = (provider: Provider) => writeConfig(h.dir.path, { git_provider: provider, mappings: { acme: { '*': { channel: 'C0000000001' } } } })
const env = (provider: Provider) => testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url })
const start = async (provider: Provider) => {
  configure(provider)
  return h.start(env(provider))
}
const refusal = (provider: Provider) => start(provider).then(
  () => undefined,
  (error: unknown) => error,
)
const recorded = () => {
  const db = new Database(dbFile(), { readonly: true })
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = 'git_provider'").get() as { value: string } | undefined)?.value
  } finally {
    db.close()
  }
}

/** A database as prherald left it before the record existed: migration 0001 only, with these rows. */
function legacyDatabase(rows: { deliveries?: Provider[]; messages?: Provider[] }): void {
  const db = openDatabase(dbFile())
  migrateUp(db, readMigrations().filter((m) => m.version === '0001'))
  rows.deliveries?.forEach((p, i) => db.prepare('INSERT INTO deliveries (provider, delivery_id, pr_key, event, received_at, applied_at) VALUES (?, ?, ?, NULL, 0, 1)').run(p, `d${i}`, 'k'))
  rows.messages?.forEach((p, i) => db.prepare("INSERT INTO slack_messages (provider, repository, pr_number, channel, ts, state, lifecycle, created_at, touched_at) VALUES (?, 'acme/api', ?, 'C0000000001', '1.0', 'open', '{}', 0, ?)").run(p, i + 1, i))
  db.close()
}

function expectMismatch(error: unknown, recordedProvider: Provider, configured: Provider): void {
  expect(isPrheraldError(error, 'database_provider'), String(error)).toBe(true)
  const e = error as Error & { fix?: string }
  expect(e.message).toBe(`the database ${dbFile()} serves git_provider ${recordedProvider}, but the configuration says ${configured}`)
  expect(e.fix).toMatch(/new database/)
}

describe('the git provider a database serves', () => {
  it('is recorded by the first server, and a server for the other provider refuses the database', async () => {
    await start('github')
    await h.stop()
    expect(recorded()).toBe('github')
    expectMismatch(await refusal('bitbucket'), 'github', 'bitbucket')
    // The refusal released the file: the right provider still starts on it.
    await start('github')
  })

  it('is taken from the rows of a database that predates the record', async () => {
    legacyDatabase({ deliveries: ['bitbucket'], messages: ['bitbucket'] })
    expectMismatch(await refusal('github'), 'bitbucket', 'github')
    expect(recorded()).toBe('bitbucket')
    await start('bitbucket')
  })

  it('is taken from slack_messages when no delivery is kept', async () => {
    legacyDatabase({ messages: ['github'] })
    expectMismatch(await refusal('bitbucket'), 'github', 'bitbucket')
  })

  it('is taken from the configuration for a database without rows', async () => {
    legacyDatabase({})
    await start('bitbucket')
    expect(recorded()).toBe('bitbucket')
  })

  it('prherald-migrate up refuses the other provider with the fix, and prherald-doctor shows FAIL', async () => {
    configure('github')
    expect((await runCliAsync('migrate', ['up'], env('github'), h.dir.path)).status).toBe(0)
    expect(recorded()).toBe('github')

    configure('bitbucket')
    const up = await runCliAsync('migrate', ['up'], env('bitbucket'), h.dir.path)
    expect(up.status).toBe(1)
    expect(up.stderr).toContain(`the database ${dbFile()} serves git_provider github, but the configuration says bitbucket`)
    expect(up.stderr).toMatch(/new database/)
    expect(recorded()).toBe('github')

    const doctor = await runCliAsync('doctor', [], env('bitbucket'), h.dir.path)
    expect(doctor.status).toBe(1)
    expect(doctor.stdout).toMatch(/^ {2}FAIL {2}provider +\S+ +serves github, but git_provider is bitbucket/m)
    expect(doctor.stdout).toMatch(/new database/)
  })
})
