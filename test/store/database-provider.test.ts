import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { Provider } from '../../machines/pull-request-event.ts'
import { migrateUp, readMigrations } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** 11.11, as issue 34 changed it: rows of several hosts share a database, so none is refused. */
const h = usePrherald()

const dbFile = () => join(h.dir.path, 'prherald.db')
const configure = (provider: Provider) => writeConfig(h.dir.path, { git_provider: provider, mappings: { acme: { '*': { channel: 'C0000000001' } } } })
const env = (provider: Provider) => testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url })
const start = async (provider: Provider) => {
  configure(provider)
  return h.start(env(provider))
}
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

describe('the hosts a database serves (issue 34: no single-host claim)', () => {
  it('a database one host\'s server used is used as it is by a server for another host, and the record is gone', async () => {
    await start('github')
    await h.stop()
    expect(recorded()).toBeUndefined()
    // Before issue 34 this was refused: "a provider change needs a new database".
    await start('bitbucket')
  })

  it('upgrades a database that predates the record, whatever host its rows belong to', async () => {
    legacyDatabase({ deliveries: ['bitbucket'], messages: ['bitbucket'] })
    await start('github')
    expect(recorded()).toBeUndefined()
  })

  it('prherald-migrate up works for any host, and prherald-doctor lists the hosts the rows belong to, a host no longer configured among them', async () => {
    legacyDatabase({ messages: ['github'] })
    configure('bitbucket')
    const up = await runCliAsync('migrate', ['up'], env('bitbucket'), h.dir.path)
    expect(up.status, up.stderr).toBe(0)
    expect(recorded()).toBeUndefined()

    const doctor = await runCliAsync('doctor', [], env('bitbucket'), h.dir.path)
    expect(doctor.stdout).toMatch(/^ {2}OK {4}hosts +\S+ +holds pull requests of github; github no longer configured: its rows are kept and not listed$/m)
  })
})
