import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import type { ControlHandler } from '../control/control-response.ts'
import type { Logger } from '../log/logger.ts'
import type { DeliveryStore } from '../store/store.ts'
import { handOffStored } from './hand-off-stored.ts'

export interface ReplayParkedControlDeps {
  store: DeliveryStore
  logger: Logger
  /** The pull request's mailbox, as for a delivery. */
  handOff: (event: LifecycleEvent) => void
  /** Recounts the parked deliveries /healthz reports. */
  refresh: () => Promise<void>
}

/**
 * The server's side of `prherald-migrate replay-parked` on SQLite (docs/control-channel.md): un-parks the
 * deliveries and hands every pending one to the mailboxes at once, as a start would. (On PostgreSQL the
 * command marks the rows itself, and the replicas' sweeps take them.)
 */
export function replayParkedControlHandler(deps: ReplayParkedControlDeps): ControlHandler {
  return async () => {
    const count = await deps.store.replayParked()
    // Every pending delivery, not only the un-parked: a batch reads its whole pull request anyway, and this one query needs no list of ids.
    if (count > 0) for (const delivery of await deps.store.pendingDeliveries()) handOffStored(delivery, deps.handOff, deps.logger)
    await deps.refresh()
    deps.logger.info('parked deliveries handed back for replay', { count })
    return { lines: [replayedLine(count, 'the running server applies them now')], exitCode: 0 }
  }
}

export const replayedLine = (count: number, how: string) =>
  count === 0 ? 'no parked deliveries' : `${count} parked ${count === 1 ? 'delivery' : 'deliveries'} un-parked; ${how}`
