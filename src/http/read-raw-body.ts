import type { Readable } from 'node:stream'
import type { H3Event } from 'h3'
import { PrheraldError } from '../errors.ts'

/** 1 MiB: GitHub caps payloads at 25 MB but pull-request events are tens of KB; Bitbucket caps at 256 KB. */
export const BODY_LIMIT = 1024 * 1024

function tooLarge(limit: number): PrheraldError {
  return new PrheraldError('body_too_large', `request body exceeds ${limit} bytes`)
}

/** Not the service's failure: the client closed the connection, or was dropped for trickling (requestTimeout). */
const aborted = () => new PrheraldError('client_aborted', 'the client closed the connection before its request body ended')

/**
 * The raw bytes, before any parsing, because the signature is over exactly these bytes. Under node:http
 * the Node stream is read directly, with plain listeners: no web-stream adapter and no async iterator (a
 * promise per chunk) on the hot path, and no copy when the body arrives in one chunk.
 */
export async function readRawBody(event: H3Event, limit = BODY_LIMIT): Promise<Buffer> {
  const declared = Number(event.req.headers.get('content-length') ?? Number.NaN)
  if (declared > limit) throw tooLarge(limit)
  const node = event.runtime?.node?.req
  if (node) return readNodeBody(node, limit)
  const source: AsyncIterable<Uint8Array> | null = event.req.body
  if (!source) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of source) {
    size += chunk.length
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size)
}

export function readNodeBody(req: Readable, limit: number): Promise<Buffer> {
  // A request closed before this read began (its client went away while it waited for the budget, or Node
  // dropped it at requestTimeout) emits nothing more: without this the promise would never settle.
  if (req.destroyed || req.readableEnded) return Promise.reject(aborted())
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (error?: unknown) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
      if (error === undefined) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
      else reject(error)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      // The rest is left to flow away unread; the 413 closes the connection (see respond.ts).
      done(tooLarge(limit))
    }
    const onEnd = () => done()
    const onError = () => done(aborted())
    const onClose = () => done(aborted())
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('error', onError)
    req.once('close', onClose)
  })
}
