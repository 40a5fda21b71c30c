import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { connect, type Socket } from 'node:net'
import type { HttpTimeouts } from '../../src/http/http-timeouts.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { parseExposition } from '../metrics/parse-exposition.ts'

/** 11.6: a client that trickles its headers or body is dropped after a bounded time. */
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined
let socket: Socket | undefined
let trickle: NodeJS.Timeout | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } })
})
afterEach(async () => {
  clearInterval(trickle)
  socket?.destroy()
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

const start = (httpTimeouts?: Partial<HttpTimeouts>) =>
  startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), httpTimeouts ? { httpTimeouts } : {})

/**
 * Opens a raw socket, writes `head`, then one byte of `drip` every 20 ms, forever if need be; resolves with what
 * the server answered once it closes the socket. The caller's hang guard (the test timeout) is the only clock.
 */
function trickleUntilClosed(port: number, head: string, drip: string): Promise<{ answer: string; dripped: number }> {
  return new Promise((resolve) => {
    let answer = ''
    let dripped = 0
    socket = connect(port, '127.0.0.1', () => {
      socket!.write(head)
      if (drip === '') return
      trickle = setInterval(() => {
        if (!socket!.writable) return
        socket!.write(drip[dripped % drip.length]!)
        dripped++
      }, 20)
    })
    socket.on('data', (chunk) => { answer += chunk.toString('latin1') })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(trickle)
      resolve({ answer, dripped })
    })
  })
}

const SMALL = { headersMs: 300, requestMs: 600, keepAliveMs: 200, checkIntervalMs: 50 }

describe('slow and stalled clients', () => {
  it('uses the git hosts\' 10 s for the header and request timeouts', async () => {
    service = await start()
    expect(service.server?.headersTimeout).toBe(10_000)
    expect(service.server?.requestTimeout).toBe(10_000)
    expect(service.server?.keepAliveTimeout).toBe(5_000)
  })

  it('drops a client that trickles its headers with 408', async () => {
    service = await start(SMALL)
    const { answer, dripped } = await trickleUntilClosed(service.port, 'POST /webhook/github HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'abcdefgh')
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    expect(dripped).toBeGreaterThan(0)
  }, 15_000)

  it('drops a client that trickles its body with 408', async () => {
    service = await start(SMALL)
    const head = 'POST /webhook/github HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n'
    const { answer } = await trickleUntilClosed(service.port, head, '{"a":1}')
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
  }, 15_000)

  it('logs a client that goes away mid-body as a client abort at info, never as a failure or a 5xx in /metrics', async () => {
    service = await start()
    const head = 'POST /webhook/github HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: gone-1\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"zen":'
    await new Promise<void>((resolve) => {
      socket = connect(service!.port, '127.0.0.1', () => { socket!.write(head, () => setTimeout(() => { socket!.destroy(); resolve() }, 50)) })
      socket.on('error', () => {})
    })
    const deadline = Date.now() + 5_000
    while (!service.entries().some((e) => e.msg === 'webhook client went away') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(service.entries().filter((e) => e.msg === 'webhook client went away')).toEqual([expect.objectContaining({ level: 'info', delivery_id: 'gone-1' })])
    expect(service.entries().filter((e) => e.level === 'error')).toEqual([])
    const samples = parseExposition(await (await fetch(service.metricsUrl)).text())
    const deliveries = samples.filter((s) => s.name === 'prherald_deliveries_total' && s.value > 0)
    expect(deliveries.map((s) => s.labels)).toEqual([expect.objectContaining({ result: 'client_aborted', reason: '' })])
  }, 15_000)

  it('closes an idle keep-alive connection', async () => {
    service = await start(SMALL)
    const { answer } = await trickleUntilClosed(service.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '')
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
  }, 15_000)
})
