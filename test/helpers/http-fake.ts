import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  body: Record<string, unknown>
  /** The body's bytes as sent (a file upload's are no form). */
  raw: Buffer
}

export type FakeHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>

export interface HttpFake {
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (raw === '') return {}
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>
  return Object.fromEntries(new URLSearchParams(raw))
}

/** A recording HTTP server on 127.0.0.1 and a free port (or `port`); the base of the fake Slack, GitHub and Bitbucket. */
export async function startHttpFake(handle: FakeHandler, port = 0): Promise<HttpFake> {
  const requests: RecordedRequest[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://fake')
    const raw = Buffer.concat(chunks)
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: req.headers['content-type'] === 'application/octet-stream' ? {} : parseBody(raw.toString('utf8'), req.headers['content-type']),
      raw,
    }
    requests.push(recorded)
    try {
      await handle(recorded, res)
    } catch (error) {
      res.writeHead(500).end(String(error))
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const bound = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${bound}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}
