import { connect } from 'node:net'

/**
 * One HTTP/1.1 exchange over a plain socket, `head` and `body` sent byte for byte: fetch and http.request
 * normalise a path (`..`, `\`) and refuse bytes that a client from outside may send. The answer's status and body.
 */
export async function rawRequest(baseUrl: string, head: Buffer | string, body = ''): Promise<{ status: number; body: string }> {
  const { port } = new URL(baseUrl)
  const socket = connect(Number(port), '127.0.0.1')
  socket.end(Buffer.concat([Buffer.from(head), Buffer.from(`content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)]))
  const chunks: Buffer[] = []
  for await (const chunk of socket) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('latin1')
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }
}
