import { connect, type Socket } from 'node:net'

export interface HeldBodies {
  /** What each connection was answered, the status line's code; 0 while it has no answer. */
  statuses(): number[]
  /** Resolves once every connection is closed (by its client or by the server). */
  closed: Promise<void>
  /** Closes every connection still open (the clients go away). */
  leave(): void
}

export interface HeldBodiesOptions {
  port: number
  count: number
  path: string
  /** The Content-Length each one declares. */
  declared: number
  /** Bytes of body each one sends before it stops sending. */
  sent: number
  headers?: Record<string, string>
}

/**
 * `count` raw connections that each send a POST declaring `declared` bytes, send `sent` of them and then hold
 * the connection, as the probe of issue 30 did. Resolves once every one has written its part.
 */
export async function holdBodies(options: HeldBodiesOptions): Promise<HeldBodies> {
  const extra = Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('')
  const head = `POST ${options.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${options.declared}\r\n${extra}\r\n`
  const part = Buffer.concat([Buffer.from(head), Buffer.alloc(options.sent, 'x')])
  const sockets: Socket[] = []
  const answers: string[] = []
  const closings: Array<Promise<void>> = []
  await Promise.all(Array.from({ length: options.count }, (_, i) => new Promise<void>((written) => {
    answers[i] = ''
    const socket = connect(options.port, '127.0.0.1', () => socket.write(part, () => written()))
    sockets.push(socket)
    socket.on('data', (chunk) => { answers[i] += chunk.toString('latin1') })
    socket.on('error', () => written())
    closings.push(new Promise((closed) => socket.on('close', () => { written(); closed() })))
  })))
  return {
    statuses: () => answers.map((a) => Number(/^HTTP\/1\.1 (\d{3})/.exec(a)?.[1] ?? 0)),
    closed: Promise.all(closings).then(() => undefined),
    leave: () => { for (const socket of sockets) socket.destroy() },
  }
}
