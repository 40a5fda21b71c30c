import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, lstatSync } from 'node:fs'
import { join } from 'node:path'
import { callControl } from '../../src/control/call-control.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** The server's control channel as the service runs it: beside the database, 0600, gone after stop or restart. */
const h = usePrherald({ slack: { anyChannel: true }, config: { server: { log_format: 'json' }, mappings: { acme: { '*': { channel: 'C0000000001' } } } } })
const spawned: SpawnedServer[] = []

afterEach(async () => {
  for (const s of spawned.splice(0)) await killServer(s)
})

const socket = () => join(h.dir.path, 'prherald.db-control.sock')

describe('the service\'s control channel', () => {
  it('listens beside the database while the service runs (0600) and is removed by stop()', async () => {
    await h.start(h.env())
    expect(lstatSync(socket()).isSocket()).toBe(true)
    expect(lstatSync(socket()).mode & 0o777).toBe(0o600)
    // The server answers (an unregistered command is refused by it, not by a missing socket).
    await expect(callControl(socket(), 'no-such-command', {})).rejects.toMatchObject({ code: 'control' })
    await h.stop()
    expect(existsSync(socket())).toBe(false)
    expect(await callControl(socket(), 'no-such-command', {})).toBeUndefined()
  })

  it('a server killed with SIGKILL leaves its socket; the next start replaces it and answers', async () => {
    const first = await spawnServer(h.env(), h.dir.path)
    first.child.kill('SIGKILL')
    await first.exited
    expect(lstatSync(socket()).isSocket()).toBe(true)
    expect(await callControl(socket(), 'no-such-command', {})).toBeUndefined()
    spawned.push(await spawnServer(h.env(), h.dir.path))
    await expect(callControl(socket(), 'no-such-command', {})).rejects.toMatchObject({ code: 'control' })
  })
})
