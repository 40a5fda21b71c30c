import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

async function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

/** (b) The ceiling for this work here: read the body, check the HMAC in constant time, parse the JSON. */
export function startBareServer(secret: string) {
  return listen(createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const given = Buffer.from(String(req.headers['x-hub-signature-256'] ?? '').replace(/^sha256=/, ''), 'hex')
      const expected = createHmac('sha256', secret).update(body).digest()
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return void res.writeHead(401).end()
      JSON.parse(body.toString('utf8'))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
  }))
}

/** (c) The common Node choice: @octokit/webhooks' node middleware with the same secret. */
export async function startOctokitServer(secret: string) {
  // Imported here, so that the bare server's process does not hold it (its memory is the bench's reference).
  const { Webhooks, createNodeMiddleware } = await import('@octokit/webhooks')
  const webhooks = new Webhooks({ secret })
  webhooks.onAny(() => {})
  const middleware = createNodeMiddleware(webhooks, { path: '/webhook/github', log: { debug() {}, info() {}, warn() {}, error() {} } })
  return listen(createServer((req, res) => {
    void middleware(req, res, () => res.writeHead(404).end())
  }))
}
