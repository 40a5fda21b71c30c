import type { H3Event } from 'h3'
import { PrheraldError } from '../errors.ts'
import { verifySlackSignature } from '../intake/verify-slack-signature.ts'
import { readRawBody } from './read-raw-body.ts'

/** Slash commands and events are small: Slack's are a few kilobytes; anything bigger is not Slack's. */
export const SLACK_REQUEST_LIMIT = 64 * 1024

/**
 * The raw body of a request Slack signed, before anything reads it: the size, then the v0 signature over the
 * exact bytes, then the five-minute window (docs/security.md#slack-requests). Throws bad_signature,
 * stale_timestamp or body_too_large.
 */
export async function verifiedSlackBody(event: H3Event, secret: string, nowMs: number, limit = SLACK_REQUEST_LIMIT): Promise<Buffer> {
  const body = await readRawBody(event, limit)
  const headers = event.req.headers
  const verdict = verifySlackSignature(secret, { body, timestamp: headers.get('x-slack-request-timestamp'), signature: headers.get('x-slack-signature') }, nowMs)
  if (verdict === 'bad_signature') throw new PrheraldError('bad_signature', 'missing or invalid X-Slack-Signature signature')
  if (verdict === 'stale_timestamp') throw new PrheraldError('stale_timestamp', 'X-Slack-Request-Timestamp is more than five minutes away from this server\'s clock')
  return body
}
