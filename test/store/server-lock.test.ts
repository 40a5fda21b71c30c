import { afterEach, describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { isPrheraldError } from '../../src/errors.ts'
import { acquireServerLock } from '../../src/store/server-lock.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { type TestService } from '../helpers/start-prherald.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** 11.3: one prherald-server per SQLite file, refused plainly, with a lock that dies with its process. */
const h = usePrherald({ slack: { anyChannel: true }, config: { server: { log_format: 'json' }, mappings: { acme: { '*': { channel: 'C0000000001' } } } } })
const services: TestService[] = []
const spawned: SpawnedServer[] = []

afterEach(async () => {
  for (const s of services.splice(0)) await s.stop()
  for (const s of spawned.splice(0)) await killServer(s)
})

const env = () => h.env()
const dbFile = () => join(h.dir.path, 'prherald.db')

describe('one server per SQLite file', () => {
  it('creates a missing database directory for its lock file, as the database opener does', () => {
    const databasePath = join(h.dir.path, 'not/yet/prherald.db')
    const lock = acquireServerLock(databasePath)
    try {
      expect(existsSync(lock.path)).toBe(true)
      expect(lock.path).toBe(`${databasePath}-server.lock`)
    } finally {
      lock.release()
    }
  })

  it('refuses a second in-process service on the same file, naming the file and the choice; stop() releases it', async () => {
    services.push(await h.start(env()))
    const second = await h.start(env()).then(
      (s) => { services.push(s); return undefined },
      (error: unknown) => error,
    )
    expect(isPrheraldError(second, 'database_in_use'), String(second)).toBe(true)
    const error = second as Error & { fix?: string }
    expect(error.message).toContain(dbFile())
    expect(error.fix).toMatch(/one server per SQLite file/)
    expect(error.fix).toMatch(/PostgreSQL/)

    await services.shift()!.stop()
    const third = await h.start(env())
    services.push(third)
    expect((await fetch(`${third.url}/healthz`)).status).toBe(200)
  })

  it('refuses a second prherald-server process; the CLIs still work beside the first; a restart right after SIGKILL starts', async () => {
    const first = await spawnServer(env(), h.dir.path)
    spawned.push(first)

    const second = await runCliAsync('server', [], env(), h.dir.path)
    expect(second.status).toBe(1)
    expect(second.stderr).toContain(`another prherald-server is using the database ${dbFile()}`)
    expect(second.stderr).toMatch(/one server per SQLite file/)
    expect(second.stderr).toMatch(/PostgreSQL/)
    expect(second.stderr).not.toMatch(/\n\s+at /) // no stack trace

    const status = await runCliAsync('migrate', ['status'], env(), h.dir.path)
    expect(status.status, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/^applied {2}0001_initial/m)
    const doctor = await runCliAsync('doctor', [], env(), h.dir.path)
    expect(doctor.stdout).toMatch(/^ {2}OK {4}file +\S+prherald\.db +opens$/m)
    expect(doctor.stdout).not.toMatch(/FAIL.*database|FAIL.*prherald\.db/)

    // The first server still answers: the CLIs did not disturb it.
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200)

    first.child.kill('SIGKILL')
    await first.exited
    const restarted = await spawnServer(env(), h.dir.path)
    spawned.push(restarted)
    expect((await fetch(`${restarted.url}/healthz`)).status).toBe(200)
    expect(existsSync(`${dbFile()}-server.lock`)).toBe(true)
  })
})
