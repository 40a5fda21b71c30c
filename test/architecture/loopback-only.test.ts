import { afterEach, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { takeRefusals } from '../helpers/loopback-only.ts'
import { staleBuildOutputs } from '../helpers/stale-build-outputs.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The test run's own guard (test/loopback-only-setup.ts): a Node process a test starts cannot connect beyond
 * 127.0.0.1 and says so where the run reads it; and an
 * end-to-end test refuses a dist/ older than its source.
 */
let dir: ReturnType<typeof makeTempDir> | undefined
afterEach(() => {
  dir?.remove()
  dir = undefined
})

/** Prints how each of the child's connects ended. 192.0.2.1 is TEST-NET-1 (RFC 5737). */
const CHILD = `
const net = require('node:net')
const tryConnect = (host, port) => new Promise((resolve) => {
  const socket = net.connect(port, host)
  socket.once('connect', () => { socket.destroy(); resolve('connected') })
  socket.once('error', (e) => resolve(e.code))
})
;(async () => {
  const server = net.createServer((s) => s.end()).listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const out = { outside: await tryConnect('192.0.2.1', 443), loopback: await tryConnect('127.0.0.1', server.address().port) }
  server.close()
  console.log(JSON.stringify(out))
})()
`

describe('tests reach only 127.0.0.1', () => {
  it('a started Node process is refused beyond loopback and reports it', () => {
    dir = makeTempDir()
    const log = join(dir.path, 'network.log')
    const result = spawnSync(process.execPath, ['-e', CHILD], {
      env: { PATH: process.env.PATH, PRHERALD_TEST_NETWORK_LOG: log }, encoding: 'utf8', timeout: 20_000,
    })
    expect(JSON.parse(result.stdout)).toEqual({ outside: 'ECONNREFUSED', loopback: 'connected' })
    expect(readFileSync(log, 'utf8')).toContain('tried to connect to 192.0.2.1:443')
    expect(result.stderr).toContain('[test network guard]')
  })

  it('a fetch from this process to a public address is refused before it leaves', async () => {
    // A TEST-NET-1 address: refused by the guard at once, where a real connect would hang until a timeout.
    // The refusal is recorded, and the setup's afterEach fails the test with it; here it is taken back.
    const error = await fetch('http://192.0.2.1/').then(() => undefined, (e: unknown) => e as Error & { cause?: { code?: string } })
    expect(error?.cause?.code).toBe('ECONNREFUSED')
    expect(takeRefusals()).toEqual(['192.0.2.1:80'])
  })

  it('names the sources whose build output is missing or older', () => {
    dir = makeTempDir()
    for (const path of ['src/fresh.ts', 'src/old.ts', 'src/new.ts', 'dist/src/fresh.js', 'dist/src/old.js']) {
      mkdirSync(join(dir.path, path, '..'), { recursive: true })
      writeFileSync(join(dir.path, path), '')
    }
    const past = new Date(Date.now() - 60_000)
    utimesSync(join(dir.path, 'dist/src/old.js'), past, past)
    expect(staleBuildOutputs(dir.path)).toEqual(['src/new.ts', 'src/old.ts'])
  })
})
