import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { githubExample } from '../helpers/github-examples.ts'
import { signedDelivery } from '../helpers/signed-delivery.ts'
import { spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

let dir: ReturnType<typeof makeTempDir>
let server: SpawnedServer | undefined

beforeEach(() => {
  dir = makeTempDir()
  writeConfig(dir.path, { git_provider: 'github', server: { log_format: 'json', shutdown_timeout_seconds: 10 }, mappings: {} })
})
afterEach(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL')
    await server.exited
  }
  dir.remove()
})

describe('shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('on %s finishes the request in flight, then exits 0', async (signal) => {
    server = await spawnServer(testEnv(dir.path, 'github', { SLACK_API_URL: 'http://127.0.0.1:9/api/' }))
    const { body, headers } = signedDelivery('github', { event: 'ping', payload: githubExample('ping') })
    const half = Math.floor(body.length / 2)
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${server!.url}/webhook/github`, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        let text = ''
        res.on('data', (c: Buffer) => { text += c.toString() })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      })
      req.on('error', reject)
      req.write(body.slice(0, half))
      // Headers and half the body are on the wire; the request is in flight once the server has accepted its
      // connection. A fixed wait does not tell (on a loaded machine the connection may still sit in the
      // listen backlog, and closing the listener then resets it): a second connection, made after this one,
      // answered means the server accepted them in order, this one first.
      req.on('socket', (socket) => socket.once('connect', () => {
        void fetch(`${server!.url}/healthz`).then(async (r) => {
          await r.arrayBuffer()
          server!.child.kill(signal)
          await waitFor('shutdown to begin', () => server!.entries().some((e) => e.msg === 'shutting down'))
          req.end(body.slice(half))
        }).catch(reject)
      }))
    })
    const result = await response
    expect(result.status).toBe(200)
    expect(JSON.parse(result.text)).toEqual({ status: 'ignored', reason: 'ping' })
    const exit = await server.exited
    expect(exit).toEqual({ code: 0, signal: null })
    expect(server.entries().map((e) => e.msg)).toEqual(expect.arrayContaining(['signal received', 'shutting down', 'stopped']))
  })

  it('refuses to start, with no listener, on a configuration error, naming the key', async () => {
    writeConfig(dir.path, { git_provider: 'github', mappings: { acme: { api: { channel: '#general' } } } })
    const error = await spawnServer(testEnv(dir.path, 'github')).then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('exited with 1 before listening')
    expect(error?.message).toContain('mappings.acme.api.channel')
    expect(error?.message).toContain('use the channel ID')
  })

  it('refuses to start when SLACK_BOT_TOKEN is missing', async () => {
    const env = testEnv(dir.path, 'github')
    delete env.SLACK_BOT_TOKEN
    const error = await spawnServer(env).then(() => undefined, (e: Error) => e)
    expect(error?.message).toContain('SLACK_BOT_TOKEN')
  })
})
