import { afterEach, describe, expect, it } from 'vitest'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createBodyBudget, type BodyBudget } from '../../src/http/body-budget.ts'
import { isPrheraldError } from '../../src/errors.ts'
import { readNodeBody } from '../../src/http/read-raw-body.ts'

/**
 * Issue 23.2: what unauthenticated bodies hold in memory together, across connections, chunked bodies included.
 * A real node:http server reads each body through the budget; the handler holds it a moment (as the
 * signature check would), then releases it.
 */
const LIMIT = 1024 * 1024
let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

async function serve(budget: BodyBudget, holdMs: number): Promise<number> {
  server = createServer((req, res) => {
    // As the webhook route does: admitted for the declared length (chunked: the limit), read, held, released.
    const declared = req.headers['content-length'] === undefined ? LIMIT : Number(req.headers['content-length'])
    budget.admit(declared).then(async (release) => {
      const body = await readNodeBody(req, LIMIT).finally(() => setTimeout(release, holdMs))
      await new Promise((r) => setTimeout(r, holdMs))
      res.end(String(body.length))
    }).catch((error: unknown) => {
      res.statusCode = isPrheraldError(error) && error.code === 'server_busy' ? 503 : 400
      res.setHeader('connection', 'close')
      res.end(isPrheraldError(error) ? error.code : 'error')
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** Posts `size` bytes in 16 KiB chunks, with a Content-Length or without (Transfer-Encoding: chunked). */
function post(port: number, size: number, chunked = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = chunked ? {} : { 'content-length': String(size) }
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => { text += c.toString() })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve({ status: 0, text: error.code }) : reject(error)))
    const chunk = Buffer.alloc(16 * 1024, 'x')
    for (let sent = 0; sent < size; sent += chunk.length) req.write(chunk.subarray(0, Math.min(chunk.length, size - sent)))
    req.end()
  })
}

describe('the unauthenticated body budget', () => {
  const limits = (large: { maxBytes: number; maxWaiting: number }, small = { maxBytes: 256 * 1024, maxWaiting: 100 }) => ({ maxWaitMs: 10_000, smallBody: 64 * 1024, small, large })

  it('holds the bytes of all bodies together under its bound, reads every body whole, and gives every byte back', async () => {
    const budget = createBodyBudget(limits({ maxBytes: 512 * 1024, maxWaiting: 100 }))
    const port = await serve(budget, 20)
    const sizes = Array.from({ length: 12 }, (_, i) => 200 * 1024 + i * 1000)
    const answers = await Promise.all(sizes.map((size) => post(port, size)))
    expect(answers).toEqual(sizes.map((size) => ({ status: 200, text: String(size) })))
    // 12 bodies of ~200 KiB (2.4 MiB) never held more than the bound at once.
    expect(budget.peak).toBeGreaterThan(200 * 1024)
    expect(budget.peak).toBeLessThanOrEqual(512 * 1024)
    expect(budget.used).toBe(0)
    expect(budget.waiting).toBe(0)
  })

  it('counts a chunked body (no Content-Length) for the whole body limit', async () => {
    const budget = createBodyBudget(limits({ maxBytes: 2 * LIMIT, maxWaiting: 100 }))
    const port = await serve(budget, 50)
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(port, 100 * 1024, true)))
    expect(answers.every((a) => a.status === 200 && a.text === String(100 * 1024))).toBe(true)
    expect(budget.peak).toBe(2 * LIMIT)
    expect(budget.used).toBe(0)
  })

  it('keeps small bodies (the hosts\' real deliveries) in a lane of their own, unblocked by large ones', async () => {
    const budget = createBodyBudget(limits({ maxBytes: 128 * 1024, maxWaiting: 100 }))
    const port = await serve(budget, 300)
    let largeDone = 0
    const large = Array.from({ length: 6 }, () => post(port, 128 * 1024).then((answer) => ((largeDone += 1), answer)))
    expect(await post(port, 20 * 1024)).toEqual({ status: 200, text: String(20 * 1024) })
    // The six large ones go one at a time (300 ms each): the small one was answered while they still queued.
    expect(budget.waiting).toBeGreaterThan(0)
    expect(largeDone).toBeLessThan(6)
    expect(await Promise.all(large)).toEqual(Array.from({ length: 6 }, () => ({ status: 200, text: String(128 * 1024) })))
  })

  it('sheds new bodies with server_busy once too many wait, and frees what the shed ones held', async () => {
    const budget = createBodyBudget(limits({ maxBytes: 128 * 1024, maxWaiting: 2 }))
    const port = await serve(budget, 200)
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(port, 128 * 1024)))
    // A shed request is answered 503 before its body is read (or its connection closed under it).
    const shed = answers.filter((a) => a.status !== 200)
    expect(shed.length).toBeGreaterThan(0)
    expect(shed.every((a) => a.text === 'server_busy' || a.status === 0)).toBe(true)
    expect(answers.filter((a) => a.status === 200).every((a) => a.text === String(128 * 1024))).toBe(true)
    expect(budget.used).toBe(0)
  })

  it('lets one body through alone even when it is larger than the bound', async () => {
    const budget = createBodyBudget(limits({ maxBytes: 16 * 1024, maxWaiting: 1 }))
    const port = await serve(budget, 0)
    expect(await post(port, 100 * 1024)).toEqual({ status: 200, text: String(100 * 1024) })
    expect(budget.used).toBe(0)
  })
})
