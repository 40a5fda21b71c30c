import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { readStoredEvent } from '../../machines/stored-json.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'

/**
 * Hands a stored pending delivery to its mailbox. One this release cannot read (written by a newer one) is
 * left pending and said once, so the start and the other pull requests go on.
 */
export function handOffStored(delivery: { deliveryId: string; event: string }, handOff: (event: LifecycleEvent) => void, logger: Logger): void {
  let event: LifecycleEvent
  try {
    event = readStoredEvent(delivery.event)
  } catch (error) {
    logger.error('pending delivery left as it is: it cannot be read', {
      delivery_id: delivery.deliveryId, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined,
    })
    return
  }
  handOff(event)
}
