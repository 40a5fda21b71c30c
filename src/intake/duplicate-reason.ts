import { createHash } from 'node:crypto'
import type { IgnoreReason, Provider } from '../../machines/pull-request-event.ts'
import type { DeliveryBody, DeliveryStore } from '../store/store.ts'

/** The raw body's digest with the delivery id it came under: what tells a replay from the host's redelivery. */
export function deliveryBody(raw: Uint8Array, deliveryId: string): DeliveryBody {
  return { digest: createHash('sha256').update(raw).digest('hex'), deliveryId }
}

/**
 * Why the store refused a delivery: its body came first under another delivery id (a captured delivery sent
 * again with a fresh id: only the body is signed), or it is the same delivery again (the host's redelivery
 * keeps both). Asked only after a refusal, so the common path costs no read.
 */
export async function duplicateReason(store: DeliveryStore, provider: Provider, body: DeliveryBody | undefined): Promise<{ reason: IgnoreReason; firstDeliveryId?: string }> {
  const first = body ? await store.firstDeliveryOfBody(provider, body.digest) : undefined
  return first !== undefined && first !== body?.deliveryId ? { reason: 'replayed_body', firstDeliveryId: first } : { reason: 'duplicate_delivery' }
}
