import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createSlackFetch } from '../../src/slack/slack-fetch.ts'

/** The Slack client's `fetch` over node:http, against a real local server: what the Web API client reads of it. */
let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server ? server.close(resolve) : resolve(undefined))
  server = undefined
})

async function listen(handle: (request: IncomingMessage, body: string, answer: (status: number, headers: Record<string, string>, body: string) => void) => void): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => handle(request, Buffer.concat(chunks).toString('utf8'), (status, headers, body) => response.writeHead(status, headers).end(body)))
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`
}

describe('createSlackFetch', () => {
  it('posts the form and answers status, headers and body; calls share one kept-alive connection', async () => {
    const sockets = new Set<unknown>()
    const seen: Array<{ method?: string; type?: string; length?: string; body: string }> = []
    const url = await listen((request, body, answer) => {
      sockets.add(request.socket)
      seen.push({ method: request.method, type: request.headers['content-type'], length: request.headers['content-length'], body })
      answer(200, { 'content-type': 'application/json; charset=utf-8', 'x-oauth-scopes': 'chat:write,reactions:write' }, JSON.stringify({ ok: true, ts: '1.2' }))
    })
    const slackFetch = createSlackFetch()
    const body = 'channel=C1&text=h%C3%A9'
    for (let i = 0; i < 3; i++) {
      const response = await slackFetch(`${url}chat.postMessage`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
      expect(response.status).toBe(200)
      expect(response.headers.get('X-OAuth-Scopes')).toBe('chat:write,reactions:write')
      expect(response.headers.get('retry-after')).toBeNull()
      expect(Object.fromEntries(response.headers.entries())['content-type']).toBe('application/json; charset=utf-8')
      expect(JSON.parse(await response.text())).toEqual({ ok: true, ts: '1.2' })
    }
    expect(seen).toHaveLength(3)
    expect(seen[0]).toEqual({ method: 'POST', type: 'application/x-www-form-urlencoded', length: String(Buffer.byteLength(body)), body })
    expect(sockets.size).toBe(1)
  })

  it('a 429 comes back as an answer with its Retry-After, not as an error', async () => {
    const url = await listen((_request, _body, answer) => answer(429, { 'retry-after': '7' }, ''))
    const response = await createSlackFetch()(`${url}chat.update`, { method: 'POST', body: 'x=1' })
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('7')
  })

  it('a refused connection is a TypeError "fetch failed" whose cause carries ECONNREFUSED, as undici reports it', async () => {
    const url = await listen(() => {})
    server!.close()
    server = undefined
    const error = await createSlackFetch()(`${url}chat.postMessage`, { method: 'POST', body: 'x=1' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toBe('fetch failed')
    expect(((error as Error).cause as { code?: string }).code).toBe('ECONNREFUSED')
  })

  it('a call whose signal times out rejects with the signal reason and leaves no request open', async () => {
    let arrived = 0
    const url = await listen(() => { arrived++ }) // never answers
    const error = await createSlackFetch()(`${url}chat.postMessage`, { method: 'POST', body: 'x=1', signal: AbortSignal.timeout(100) }).catch((e: unknown) => e)
    expect((error as Error).name).toBe('TimeoutError')
    expect(arrived).toBe(1)
    // The client closed its socket: the server hears of it within a moment.
    const connections = () => new Promise<number>((resolve) => server!.getConnections((_e, n) => resolve(n)))
    for (let i = 0; i < 50 && await connections() > 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(await connections()).toBe(0)
  })

  it('headers given as a Headers object arrive', async () => {
    const url = await listen((request, _body, answer) => answer(200, {}, String(request.headers['x-probe'])))
    const response = await createSlackFetch()(`${url}auth.test`, { method: 'POST', headers: new Headers({ 'x-probe': 'kept' }), body: 'x=1' })
    expect(await response.text()).toBe('kept')
  })

  it('a body that is not text or bytes (a file upload form) goes to Node fetch', async () => {
    const url = await listen((request, _body, answer) => answer(200, {}, String(request.headers['content-type'])))
    const form = new FormData()
    form.append('file', new Blob(['x']), 'x.txt')
    const response = await createSlackFetch()(`${url}files.upload`, { method: 'POST', body: form })
    expect(await response.text()).toMatch(/^multipart\/form-data; boundary=/)
  })

  it('a URL with credentials in it is refused, as Node fetch refuses it, and nothing is sent', async () => {
    let arrived = 0
    const url = await listen((_request, _body, answer) => { arrived++; answer(200, {}, '{}') })
    const error = await createSlackFetch()(url.replace('http://', 'http://bot:secret@') + 'auth.test', { method: 'POST', body: 'x=1' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect(arrived).toBe(0)
  })
})
