import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { PendingDelivery } from '../store/store.ts'

/**
 * Hands a stored pending delivery to its mailbox. One this release cannot read (written by a newer one) is
 * left pending and said once, so the start and the other pull requests go on.
 */
export function handOffStored(delivery: PendingDelivery, handOff: (event: LifecycleEvent) => void, logger: Logger): void {
  if (delivery.event) return handOff(delivery.event)
  const error = delivery.unreadable
  logger.error('pending delivery left as it is: it cannot be read', {
    delivery_id: delivery.deliveryId, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined,
  })
}
