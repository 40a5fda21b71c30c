import { createHmac, timingSafeEqual } from 'node:crypto'

/** Slack's replay window: a request whose timestamp is further than this from our clock is refused. */
export const SLACK_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60

const SIGNATURE = /^v0=([0-9a-f]{64})$/i
const TIMESTAMP = /^\d{1,12}$/

export type SlackSignatureVerdict = 'ok' | 'bad_signature' | 'stale_timestamp'

export interface SlackRequest {
  /** The raw body, exactly as received: the signature is over these bytes. */
  body: Uint8Array
  /** `X-Slack-Request-Timestamp`: unix seconds when Slack sent the request. */
  timestamp: string | null | undefined
  /** `X-Slack-Signature`: `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<body>`. */
  signature: string | null | undefined
}

const basestring = (timestamp: string, body: Uint8Array | string) =>
  Buffer.concat([Buffer.from(`v0:${timestamp}:`), Buffer.from(body)])

/**
 * Slack's request signing, version 0 (docs.slack.dev, "Verifying requests from Slack"): HMAC-SHA256 with the
 * app's signing secret over `v0:<X-Slack-Request-Timestamp>:<raw body>`, compared in constant time. The
 * timestamp is checked only after the signature, so a stale answer is only ever given to Slack's own (old)
 * request, and it is part of what is signed, so it cannot be refreshed by whoever replays the request.
 */
export function verifySlackSignature(secret: string, request: SlackRequest, nowMs: number): SlackSignatureVerdict {
  const match = SIGNATURE.exec(request.signature?.trim() ?? '')
  const timestamp = request.timestamp?.trim() ?? ''
  if (!match?.[1] || !TIMESTAMP.test(timestamp) || secret === '') return 'bad_signature'
  const expected = createHmac('sha256', secret).update(basestring(timestamp, request.body)).digest()
  if (!timingSafeEqual(expected, Buffer.from(match[1], 'hex'))) return 'bad_signature'
  const skew = Math.abs(nowMs / 1000 - Number(timestamp))
  return skew > SLACK_TIMESTAMP_TOLERANCE_SECONDS ? 'stale_timestamp' : 'ok'
}

/** The `X-Slack-Signature` Slack would send; for tests and the fake Slack. */
export function signSlackRequest(secret: string, timestamp: string, body: Uint8Array | string): string {
  return `v0=${createHmac('sha256', secret).update(basestring(timestamp, body)).digest('hex')}`
}
