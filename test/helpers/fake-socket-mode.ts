import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { Duplex } from 'node:stream'

/** One socket a client opened: what it was sent and what it acknowledged. */
export interface FakeSocketConnection {
  id: number
  acks: Array<{ envelope_id: string; payload?: unknown }>
  closed: boolean
  /** Sends one frame (JSON) to the client. */
  send(frame: unknown): void
  /** Slack's `disconnect` envelope with this reason. */
  disconnect(reason: string): void
  /** Cuts the TCP connection without a close frame (a dropped socket). */
  drop(): void
  /** Pings the client now (Slack pings every socket it holds). */
  ping(): void
  /** Pings the client sent; each is answered with a pong until halfOpen(). */
  pings: number
  /**
   * From now on nothing more is sent or answered on this connection (no ping, pong, ack or close frame) while
   * its TCP connection stays open: a half-open socket, deaf yet open to the client.
   */
  halfOpen(): void
}

/**
 * Slack's Socket Mode on 127.0.0.1: `POST /api/apps.connections.open` answers a `ws://127.0.0.1` URL (for an
 * `xapp-` token), each socket gets `hello`, and envelopes sent are acknowledged by the client's
 * `{ envelope_id }`. A minimal RFC 6455 server (text frames, close, ping and pong), written out so that the
 * test controls what the wire carries (a half-open socket). With `pingEveryMs`, every socket is pinged as Slack does.
 */
export interface FakeSocketMode {
  /** The API URL (`…/api/`) to give as SLACK_API_URL. */
  apiUrl: string
  /** A socket URL on this server, for another fake's apps.connections.open to answer. */
  socketUrl: string
  connections: FakeSocketConnection[]
  /** apps.connections.open calls, with the token each carried. */
  opens: string[]
  /** Slack errors answered by the next apps.connections.open calls, one per call. */
  openErrors: string[]
  /** While true, a new socket gets no hello (a server that accepted and says nothing). */
  silent: boolean
  /** Holds apps.connections.open answers until it settles (a reconnection under way). */
  holdOpen: Promise<unknown> | undefined
  /** Sends an envelope to the newest open connection; resolves with its acknowledgement. */
  envelope(type: string, payload: unknown, envelopeId?: string, waitMs?: number): Promise<{ envelope_id: string; payload?: unknown }>
  /** Resolves once `count` connections said hello (were opened). */
  waitForConnections(count: number): Promise<void>
  close(): Promise<void>
}

export async function startFakeSocketMode(options: { pingEveryMs?: number } = {}): Promise<FakeSocketMode> {
  const sockets = new Set<Duplex>()
  let next = 0
  const waiters: Array<() => void> = []
  const server: Server = createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '')
    req.resume()
    req.on('end', async () => {
      fake.opens.push(token)
      await fake.holdOpen
      const error = fake.openErrors.shift() ?? (token.startsWith('xapp-') ? undefined : 'not_allowed_token_type')
      const { port } = server.address() as { port: number }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(error ? { ok: false, error } : { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=${++next}` }))
    })
  })
  server.on('upgrade', (req, socket) => {
    sockets.add(socket)
    const accept = createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`)
    let deaf = false
    const write = (opcode: number, payload: Buffer) => { if (!connection.closed && !deaf) socket.write(encode(opcode, payload)) }
    const connection: FakeSocketConnection = {
      id: fake.connections.length + 1, acks: [], closed: false, pings: 0,
      send: (frame) => write(0x1, Buffer.from(JSON.stringify(frame))),
      disconnect: (reason) => connection.send({ type: 'disconnect', reason, debug_info: { host: 'fake' } }),
      drop: () => { connection.closed = true; socket.destroy() },
      ping: () => write(0x9, Buffer.from('fake-slack')),
      halfOpen: () => { deaf = true },
    }
    let buffered = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      for (let frame = decode(buffered); frame; frame = decode(buffered)) {
        buffered = buffered.subarray(frame.length)
        if (deaf) continue
        if (frame.opcode === 0x9) {
          connection.pings += 1
          write(0xa, frame.payload)
        } else if (frame.opcode === 0x8) {
          if (!connection.closed) socket.end(encode(0x8, frame.payload))
          connection.closed = true
        } else if (frame.opcode === 0x1) connection.acks.push(JSON.parse(frame.payload.toString('utf8')) as { envelope_id: string })
      }
    })
    // The client cut its end (no close frame): node:http keeps an upgraded socket half-open, so end ours too.
    socket.on('end', () => { connection.closed = true; socket.end() })
    socket.on('close', () => { connection.closed = true; sockets.delete(socket) })
    socket.on('error', () => {})
    fake.connections.push(connection)
    if (!fake.silent) connection.send({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } })
    for (const wake of waiters.splice(0)) wake()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const pinging = options.pingEveryMs ? setInterval(() => { for (const c of fake.connections) c.ping() }, options.pingEveryMs) : undefined
  const { port } = server.address() as { port: number }
  const fake: FakeSocketMode = {
    apiUrl: `http://127.0.0.1:${port}/api/`, socketUrl: `ws://127.0.0.1:${port}/link/?ticket=from-slack`, connections: [], opens: [], openErrors: [], silent: false, holdOpen: undefined,
    async envelope(type, payload, envelopeId = `env-${Math.random().toString(36).slice(2)}`, waitMs = 5000) {
      const connection = fake.connections.findLast((c) => !c.closed)
      if (!connection) throw new Error('no open connection')
      connection.send({ envelope_id: envelopeId, type, payload, accepts_response_payload: type !== 'events_api', retry_attempt: 0, retry_reason: '' })
      for (let waited = 0; waited < waitMs; waited += 10) {
        const ack = connection.acks.find((a) => a.envelope_id === envelopeId)
        if (ack) return ack
        await new Promise((r) => setTimeout(r, 10))
      }
      throw new Error(`no ack for ${envelopeId}`)
    },
    async waitForConnections(count) {
      while (fake.connections.length < count) await new Promise<void>((resolve) => waiters.push(resolve))
    },
    async close() {
      clearInterval(pinging)
      for (const socket of sockets) socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return fake
}

/** An unmasked server frame. */
function encode(opcode: number, payload: Buffer): Buffer {
  const length = payload.length
  const head = length < 126 ? Buffer.from([0x80 | opcode, length])
    : length < 65536 ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
      : Buffer.concat([Buffer.from([0x80 | opcode, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b })()])
  return Buffer.concat([head, payload])
}

/** One whole (masked, client) frame at the start of `data`, or undefined until it has arrived. */
function decode(data: Buffer): { opcode: number; payload: Buffer; length: number } | undefined {
  if (data.length < 2) return undefined
  const opcode = data[0]! & 0x0f
  const masked = (data[1]! & 0x80) !== 0
  let length = data[1]! & 0x7f
  let offset = 2
  if (length === 126) { if (data.length < 4) return undefined; length = data.readUInt16BE(2); offset = 4 }
  else if (length === 127) { if (data.length < 10) return undefined; length = Number(data.readBigUInt64BE(2)); offset = 10 }
  const mask = masked ? data.subarray(offset, offset + 4) : undefined
  if (masked) offset += 4
  if (data.length < offset + length) return undefined
  const payload = Buffer.from(data.subarray(offset, offset + length))
  if (mask) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i % 4]!
  return { opcode, payload, length: offset + length }
}
