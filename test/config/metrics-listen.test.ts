import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { PrheraldError } from '../../src/errors.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/** `server.metrics_listen`: read like `server.listen`, refused with the key, the file and the fix. */
let dir: ReturnType<typeof makeTempDir>
beforeEach(() => { dir = makeTempDir() })
afterEach(() => dir.remove())

const MAPPINGS = 'mappings:\n  acme:\n    api:\n      channel: C0123ABC\n'

function load(server: string, env: Record<string, string> = {}) {
  writeFileSync(join(dir.path, 'config.yaml'), `git_provider: github\n${server ? `server:\n${server}` : ''}${MAPPINGS}`)
  return loadSettings({ PRHERALD_CONFIG_FILE: join(dir.path, 'config.yaml'), ...env }, dir.path)
}

function refusal(server: string, env: Record<string, string> = {}): PrheraldError {
  try {
    load(server, env)
  } catch (error) {
    expect(error).toBeInstanceOf(PrheraldError)
    expect((error as PrheraldError).code).toBe('config_invalid')
    expect((error as PrheraldError).message).toContain(join(dir.path, 'config.yaml'))
    return error as PrheraldError
  }
  throw new Error('expected the configuration to be refused')
}

describe('server.metrics_listen', () => {
  it('is unset by default: /metrics is served on the webhook listener', () => {
    expect(load('').metricsListen).toBeUndefined()
  })

  it('reads host:port, :port and an IPv6 host', () => {
    expect(load('  metrics_listen: "127.0.0.1:9464"\n').metricsListen).toEqual({ host: '127.0.0.1', port: 9464 })
    expect(load('  metrics_listen: ":9464"\n').metricsListen).toEqual({ host: undefined, port: 9464 })
    expect(load('  metrics_listen: "[::1]:9464"\n').metricsListen).toEqual({ host: '::1', port: 9464 })
  })

  it.each([
    ['a host without a port', '  metrics_listen: "localhost"\n', /server\.metrics_listen: "localhost" is not an address; use host:port or :port, e\.g\. 127\.0\.0\.1:9464/],
    ['a port out of range', '  metrics_listen: ":70000"\n', /server\.metrics_listen: ":70000" is not an address/],
    ['a number instead of a string', '  metrics_listen: 9464\n', /server\.metrics_listen: expected string, found 9464/],
    ['the webhook port', '  listen: ":8080"\n  metrics_listen: "127.0.0.1:8080"\n', /server\.metrics_listen: "127\.0\.0\.1:8080" is the port the webhooks listen on \(8080\); give \/metrics another port/],
    ['a misspelt key', '  metric_listen: ":9464"\n', /server\.metric_listen: unknown key; remove it or fix its spelling \(allowed here: listen, metrics_listen,/],
  ])('refuses %s, naming the key', (_name, server, pattern) => {
    expect(refusal(server).message).toMatch(pattern)
  })

  it('compares with the effective webhook address, after PRHERALD_LISTEN', () => {
    expect(refusal('  metrics_listen: ":9000"\n', { PRHERALD_LISTEN: '127.0.0.1:9000' }).message).toMatch(/is the port the webhooks listen on \(9000\)/)
    // The same port on another address of the host is a different listener.
    expect(load('  listen: "10.0.0.1:9000"\n  metrics_listen: "127.0.0.1:9000"\n').metricsListen).toEqual({ host: '127.0.0.1', port: 9000 })
  })
})
