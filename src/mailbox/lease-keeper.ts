import { randomBytes } from 'node:crypto'
import { handOffStored } from './hand-off-stored.ts'
import { hostname } from 'node:os'
import type { Provider, PullRequestEvent } from '../../machines/pull-request-event.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { SharedWork } from '../store/store.ts'

/** At most so many expired deliveries are taken over per sweep; the next sweep takes more. */
const CLAIM_LIMIT = 500

/** This server among the replicas: host and process, and a random part for a restart that reuses both (pid 1 in a container). */
export function replicaId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`
}

export interface LeaseKeeperDeps {
  store: SharedWork
  logger: Logger
  /** This server's replica id. */
  owner: string
  leaseMs: number
  /** Gives a taken-over delivery to this server's mailboxes. */
  handOff: (event: LifecycleEvent) => void
  /** How often leases are renewed and expired ones swept; default a third of the lease. */
  intervalMs?: number
}

export interface LeaseKeeper {
  /** The delivery is in this server's mailboxes: its lease is renewed until `done`. */
  hold(event: Pick<PullRequestEvent, 'provider' | 'deliveryId'>): void
  /** The batch that held these deliveries finished (applied, or failed: then the lease runs out and a sweep retries). */
  done(events: ReadonlyArray<Pick<PullRequestEvent, 'deliveryId'>>): void
  /** One round: renew what is held, then take over what expired. Run by the timer; tests call it directly. */
  tick(): Promise<void>
  held(): number
  /** Whether the delivery is in this server's mailboxes (held and not yet done). */
  holds(deliveryId: string): boolean
  /** Stops the timer and waits for a round under way, so that the store can close after it. */
  stop(): Promise<void>
}

/**
 * Keeps this server's claim on the deliveries it works on, and takes over the ones whose server stopped
 * renewing (it died): with a lease of L, a dead server's deliveries are claimed within L plus one interval.
 * On SQLite both steps are no-ops in the store (one server per file).
 */
export function createLeaseKeeper(deps: LeaseKeeperDeps): LeaseKeeper {
  const held = new Map<string, Provider>()
  let running: Promise<void> | undefined
  const lease = { owner: deps.owner, leaseMs: deps.leaseMs }

  const renew = async () => {
    const byProvider = new Map<Provider, string[]>()
    for (const [id, provider] of held) byProvider.set(provider, [...(byProvider.get(provider) ?? []), id])
    for (const [provider, deliveryIds] of byProvider) await deps.store.renewLeases({ ...lease, provider, deliveryIds })
  }
  const sweep = async () => {
    const claimed = await deps.store.claimExpiredDeliveries({ ...lease, limit: CLAIM_LIMIT })
    if (claimed.length === 0) return
    deps.logger.info('taking over deliveries another server left unfinished', { count: claimed.length })
    for (const delivery of claimed) {
      handOffStored(delivery, (event) => {
        held.set(event.deliveryId, event.provider)
        deps.handOff(event)
      }, deps.logger)
    }
  }
  const tick = () => (running ??= (async () => {
    try {
      await renew()
      await sweep()
    } catch (error) {
      // A database blip: the next round tries again; a lease that ran out meanwhile is only work done twice.
      deps.logger.warn('could not renew or sweep delivery leases; trying again at the next round', errorFields(error))
    } finally {
      running = undefined
    }
  })())
  const timer = setInterval(() => void tick(), deps.intervalMs ?? Math.max(1, Math.floor(deps.leaseMs / 3)))
  timer.unref()

  return {
    hold: (event) => void held.set(event.deliveryId, event.provider),
    done: (events) => { for (const e of events) held.delete(e.deliveryId) },
    tick,
    held: () => held.size,
    holds: (deliveryId) => held.has(deliveryId),
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
