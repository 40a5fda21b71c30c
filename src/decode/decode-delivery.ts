import { createHash } from 'node:crypto'
import type { Decoded, Provider } from '../../machines/pull-request-event.ts'
import { CHECK_EVENTS, decodeGithubCheck, type CheckDelivery } from '../hosts/github/decode-check.ts'
import { decodeGithub } from '../hosts/github/decode.ts'
import { decodeBitbucket } from '../hosts/bitbucket/decode.ts'

/** The headers that name a delivery's event and identity, per provider. */
export const DELIVERY_HEADERS = {
  github: { signature: 'x-hub-signature-256', event: 'x-github-event', delivery: 'x-github-delivery' },
  bitbucket: { signature: 'x-hub-signature', event: 'x-event-key', delivery: 'x-request-uuid' },
} as const satisfies Record<Provider, { signature: string; event: string; delivery: string }>

/**
 * The delivery id, used to drop duplicates. Both hosts always send one; if a proxy strips it, the body's
 * hash stands in, which still recognises a retried delivery (same bytes) as the same one.
 */
export function deliveryIdOf(provider: Provider, headers: Headers, body: Uint8Array): string {
  const id = headers.get(DELIVERY_HEADERS[provider].delivery)?.trim()
  return id || `sha256:${createHash('sha256').update(body).digest('hex')}`
}

/** A decoded delivery: about one pull request, ignored, or a GitHub check result about a commit. */
export type Delivery = Decoded | CheckDelivery

export function decodeDelivery(provider: Provider, eventName: string, deliveryId: string, payload: unknown): Delivery {
  if (provider === 'github' && CHECK_EVENTS.has(eventName)) return decodeGithubCheck(eventName, deliveryId, payload)
  return provider === 'github'
    ? decodeGithub(eventName, deliveryId, payload)
    : decodeBitbucket(eventName, deliveryId, payload)
}
