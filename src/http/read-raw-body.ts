import type { H3Event } from 'h3'
import { PrheraldError } from '../errors.ts'

/** 1 MiB: GitHub caps payloads at 25 MB but pull-request events are tens of KB; Bitbucket caps at 256 KB. */
export const BODY_LIMIT = 1024 * 1024

function tooLarge(limit: number): PrheraldError {
  return new PrheraldError('body_too_large', `request body exceeds ${limit} bytes`)
}

/**
 * The raw bytes, before any parsing, because the signature is over exactly these bytes. Under node:http
 * the Node stream is read directly: it avoids the web-stream adapter on the hot path.
 */
export async function readRawBody(event: H3Event, limit = BODY_LIMIT): Promise<Buffer> {
  const declared = Number(event.req.headers.get('content-length') ?? Number.NaN)
  if (declared > limit) throw tooLarge(limit)
  const source: AsyncIterable<Uint8Array> | null = event.runtime?.node?.req ?? event.req.body
  if (!source) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of source) {
    size += chunk.length
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  return chunks.length === 1 && Buffer.isBuffer(chunks[0]) ? chunks[0] : Buffer.concat(chunks, size)
}
