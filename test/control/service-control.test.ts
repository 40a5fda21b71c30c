import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, lstatSync } from 'node:fs'
import { join } from 'node:path'
import { callControl } from '../../src/control/call-control.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** The server's control channel as the service runs it: beside the database, 0600, gone after stop or restart. */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
const services: TestService[] = []
const spawned: SpawnedServer[] = []

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json' }, mappings: { acme: { '*': { channel: 'C0000000001' } } } })
})
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop()
  for (const s of spawned.splice(0)) await killServer(s)
  await slack.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })
const socket = () => join(dir.path, 'prherald.db-control.sock')

describe('the service\'s control channel', () => {
  it('listens beside the database while the service runs (0600) and is removed by stop()', async () => {
    const service = await startPrherald(dir.path, env())
    services.push(service)
    expect(lstatSync(socket()).isSocket()).toBe(true)
    expect(lstatSync(socket()).mode & 0o777).toBe(0o600)
    // The server answers (an unregistered command is refused by it, not by a missing socket).
    await expect(callControl(socket(), 'no-such-command', {})).rejects.toMatchObject({ code: 'control' })
    await services.shift()!.stop()
    expect(existsSync(socket())).toBe(false)
    expect(await callControl(socket(), 'no-such-command', {})).toBeUndefined()
  })

  it('a server killed with SIGKILL leaves its socket; the next start replaces it and answers', async () => {
    const first = await spawnServer(env(), dir.path)
    first.child.kill('SIGKILL')
    await first.exited
    expect(lstatSync(socket()).isSocket()).toBe(true)
    expect(await callControl(socket(), 'no-such-command', {})).toBeUndefined()
    spawned.push(await spawnServer(env(), dir.path))
    await expect(callControl(socket(), 'no-such-command', {})).rejects.toMatchObject({ code: 'control' })
  })
})
