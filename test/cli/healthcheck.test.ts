import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { healthUrl } from '../../src/cli/health-url.ts'
import type { Env } from '../../src/config/load-config.ts'
import { packageRoot } from '../../src/package-root.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The image's HEALTHCHECK (dist/src/cli/healthcheck.js) asks the port the server really listens on: the
 * one PRHERALD_LISTEN names, or server.listen when the variable is unset, never a fixed 8080.
 */
const SCRIPT = join(packageRoot(), 'dist/src/cli/healthcheck.js')

function healthcheck(env: Env, cwd: string): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, [SCRIPT], { cwd, env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv })
  let output = ''
  child.stdout.on('data', (c: Buffer) => { output += c.toString() })
  child.stderr.on('data', (c: Buffer) => { output += c.toString() })
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, output })))
}

/** A port nothing listens on right now (the server is then told to take it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

let dir: ReturnType<typeof makeTempDir>
let server: SpawnedServer | undefined
beforeEach(() => {
  dir = makeTempDir()
})
afterEach(async () => {
  await killServer(server)
  server = undefined
  dir.remove()
})

describe('healthcheck', () => {
  it('follows PRHERALD_LISTEN: healthy on the port the server took, unhealthy on any other', async () => {
    writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json' }, mappings: {} })
    const port = await freePort()
    const env = testEnv(dir.path, 'github', { PRHERALD_LISTEN: `127.0.0.1:${port}` })
    server = await spawnServer(env, dir.path)
    expect(server.port).toBe(port)
    expect(await healthcheck(env, dir.path)).toEqual({ status: 0, output: '' })
    const elsewhere = await freePort()
    expect((await healthcheck({ ...env, PRHERALD_LISTEN: `127.0.0.1:${elsewhere}` }, dir.path)).status).toBe(1)
  })

  it('follows server.listen in the config when PRHERALD_LISTEN is unset', async () => {
    const port = await freePort()
    writeConfig(dir.path, { git_provider: 'github', server: { listen: `127.0.0.1:${port}`, log_format: 'json' }, mappings: {} })
    const { PRHERALD_LISTEN: _unset, ...env } = testEnv(dir.path, 'github')
    server = await spawnServer(env, dir.path)
    expect(server.port).toBe(port)
    expect((await healthcheck(env, dir.path)).status).toBe(0)
  })

  it('is unhealthy, silently, when nothing listens or the config does not load', async () => {
    writeConfig(dir.path, { git_provider: 'github', mappings: {} })
    expect(await healthcheck(testEnv(dir.path, 'github', { PRHERALD_LISTEN: `127.0.0.1:${await freePort()}` }), dir.path)).toEqual({ status: 1, output: '' })
    expect((await healthcheck(testEnv(join(dir.path, 'missing'), 'github'), dir.path)).status).toBe(1)
  })

  it('asks loopback for a wildcard address and the named host otherwise', () => {
    expect(healthUrl({ host: undefined, port: 8080 })).toBe('http://127.0.0.1:8080/healthz')
    expect(healthUrl({ host: '0.0.0.0', port: 9000 })).toBe('http://127.0.0.1:9000/healthz')
    expect(healthUrl({ host: '::', port: 9000 })).toBe('http://127.0.0.1:9000/healthz')
    expect(healthUrl({ host: '::1', port: 9000 })).toBe('http://[::1]:9000/healthz')
    expect(healthUrl({ host: '10.0.0.5', port: 80 })).toBe('http://10.0.0.5:80/healthz')
  })
})
