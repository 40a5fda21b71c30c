import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, lstatSync } from 'node:fs'
import { join } from 'node:path'
import { callControl } from '../../src/control/call-control.ts'
import type { ControlHandler } from '../../src/control/control-response.ts'
import { controlSocketPath } from '../../src/control/control-socket-path.ts'
import { startControlServer, type ControlServer } from '../../src/control/control-server.ts'
import { PrheraldError } from '../../src/errors.ts'
import { createLogger } from '../../src/log/logger.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let path: string
let logs: string[]
let server: ControlServer | undefined
const logger = () => createLogger({ format: 'json', level: 'debug', write: (l) => logs.push(l) })
const entries = () => logs.map((l) => JSON.parse(l) as Record<string, unknown>)

beforeEach(() => {
  dir = makeTempDir()
  path = join(dir.path, 'prherald.db-control.sock')
  logs = []
})
afterEach(async () => {
  await server?.stop(Date.now() + 1000)
  server = undefined
  dir.remove()
})

/** A socket file nobody listens on any more: what a server killed with SIGKILL leaves behind (a clean close unlinks it). */
async function leaveStaleSocket(socketPath: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('up'))`])
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve())
    child.once('exit', () => reject(new Error('the listener exited early')))
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

const echo: ControlHandler = async (body) => ({ lines: [`got ${JSON.stringify(body)}`, 'second line'], exitCode: 3 })

describe('control channel', () => {
  it('the socket sits beside the SQLite database; a PostgreSQL database has none', () => {
    expect(controlSocketPath({ database: { kind: 'sqlite', path: '/srv/data/prherald.db' } })).toBe('/srv/data/prherald.db-control.sock')
    expect(controlSocketPath({ database: { kind: 'postgres', url: 'postgres://db:5432/prherald' } })).toBeUndefined()
  })

  it('a registered handler is called through the socket with the body, and its lines and exit status come back', async () => {
    server = await startControlServer({ path, handlers: new Map([['echo', echo]]), logger: logger() })
    expect(server?.path).toBe(path)
    expect(await callControl(path, 'echo', { channels: ['C1'], dryRun: false })).toEqual({
      lines: ['got {"channels":["C1"],"dryRun":false}', 'second line'], exitCode: 3,
    })
  })

  it('listens on a Unix socket only its user may use (0600)', async () => {
    server = await startControlServer({ path, handlers: new Map(), logger: logger() })
    const stat = lstatSync(path)
    expect(stat.isSocket()).toBe(true)
    expect(stat.mode & 0o777).toBe(0o600)
  })

  it('with no server listening the client answers undefined: no socket file, a dead server\'s file, no path', async () => {
    expect(await callControl(path, 'echo', {})).toBeUndefined()
    await leaveStaleSocket(path)
    expect(lstatSync(path).isSocket()).toBe(true)
    expect(await callControl(path, 'echo', {})).toBeUndefined()
    expect(await callControl(undefined, 'echo', {})).toBeUndefined()
  })

  it('removes a stale socket file at start and listens there', async () => {
    await leaveStaleSocket(path)
    expect(lstatSync(path).isSocket()).toBe(true)
    server = await startControlServer({ path, handlers: new Map([['echo', echo]]), logger: logger() })
    expect((await callControl(path, 'echo', 1))?.lines[0]).toBe('got 1')
  })

  it('stop() closes the socket and removes its file: the client then sees no server', async () => {
    server = await startControlServer({ path, handlers: new Map([['echo', echo]]), logger: logger() })
    await server!.stop(Date.now() + 1000)
    server = undefined
    expect(existsSync(path)).toBe(false)
    expect(await callControl(path, 'echo', {})).toBeUndefined()
  })

  it('a failing handler comes back as a PrheraldError with its message and fix; the server logs it without a stack', async () => {
    const failing: ControlHandler = async () => { throw new PrheraldError('slack_auth', 'Slack refuses SLACK_BOT_TOKEN: invalid_auth', { fix: 'set a working token' }) }
    server = await startControlServer({ path, handlers: new Map([['digest', failing]]), logger: logger() })
    const error = await callControl(path, 'digest', {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PrheraldError)
    expect(error).toMatchObject({ code: 'control', message: 'Slack refuses SLACK_BOT_TOKEN: invalid_auth', fix: 'set a working token' })
    expect(entries()).toContainEqual(expect.objectContaining({ msg: 'control command failed', command: 'digest', error: 'Slack refuses SLACK_BOT_TOKEN: invalid_auth' }))
    expect(logs.join('\n')).not.toContain('at ')
  })

  it('an unknown command is refused with an error naming it', async () => {
    server = await startControlServer({ path, handlers: new Map([['echo', echo]]), logger: logger() })
    await expect(callControl(path, 'reconcile', {})).rejects.toMatchObject({ code: 'control', message: 'the server has no control command "reconcile"' })
  })

  it('a socket path too long for a Unix socket starts no channel, with a warning that says what to do', async () => {
    const long = join(dir.path, 'x'.repeat(120), 'prherald.db-control.sock')
    server = await startControlServer({ path: long, handlers: new Map(), logger: logger() })
    expect(server).toBeUndefined()
    expect(entries()).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'control channel not started: its socket path is too long for a Unix socket' }))
  })
})
