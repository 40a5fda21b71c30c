import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { serverLockPath } from '../../src/store/server-lock.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 30.7: under the usual umask 022, the SQLite database is for prherald's user only: its directory
 * created 0700, the database and its -wal and -shm files 0600 (another local user read every person's
 * preferences and every message row before).
 */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined
let umask: number

beforeEach(async () => {
  umask = process.umask(0o022)
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
  process.umask(umask)
})

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

async function startOn(database: string): Promise<void> {
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, PRHERALD_DATABASE_URL: `file:${database}` }))
  // A delivery written, so the -wal and -shm files exist with what they hold.
  expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 3) })).status).toBe(200)
}

describe('the SQLite files under umask 022', () => {
  it('a fresh data directory is 0700, the database, its -wal and -shm and the server lock 0600', async () => {
    const database = join(dir.path, 'data', 'nested', 'prherald.db')
    await startOn(database)
    expect(modeOf(join(dir.path, 'data'))).toBe('700')
    expect(modeOf(join(dir.path, 'data', 'nested'))).toBe('700')
    for (const file of [database, `${database}-wal`, `${database}-shm`, serverLockPath(database)]) expect([file, modeOf(file)]).toEqual([file, '600'])
  })

  it('files an earlier prherald left 0644 are narrowed to 0600 at the start', async () => {
    const data = join(dir.path, 'data')
    mkdirSync(data)
    const database = join(data, 'prherald.db')
    writeFileSync(database, '', { mode: 0o644 })
    expect(modeOf(database)).toBe('644')
    await startOn(database)
    for (const file of [database, `${database}-wal`, `${database}-shm`]) expect([file, modeOf(file)]).toEqual([file, '600'])
  })
})
