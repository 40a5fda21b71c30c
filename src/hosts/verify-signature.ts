import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

const HEADER = /^sha256=([0-9a-f]{64})$/i

/**
 * Checks `sha256=<hex>` (GitHub's X-Hub-Signature-256, Bitbucket's X-Hub-Signature) against the HMAC of the
 * raw body, in constant time. Several secrets may be given so that one can be rotated without downtime.
 */
export function verifySignature(secrets: readonly string[], body: Uint8Array, header: string | null | undefined): boolean {
  const match = HEADER.exec(header?.trim() ?? '')
  if (!match?.[1]) return false
  const given = Buffer.from(match[1], 'hex')
  let valid = false
  for (const secret of secrets) {
    if (secret === '') continue
    const expected = createHmac('sha256', secret).update(body).digest()
    // No early return: every secret is tried, so timing does not reveal which one matched.
    valid = timingSafeEqual(expected, given) || valid
  }
  return valid
}

export function signBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}

/**
 * The delivery id when a proxy stripped the host's own: the body's hash, which still recognises a retried
 * delivery (same bytes) as the same one.
 */
export function bodyDigestId(body: Uint8Array): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`
}
