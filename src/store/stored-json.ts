import { PrheraldError } from '../errors.ts'
import type { StoredLifecycle } from '../../machines/decide.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'

/**
 * The JSON the store keeps of prherald's own vocabulary: each pending delivery's event and each message's
 * lifecycle. Both carry the version of their shape (`v`), so that a release which changes a shape upgrades
 * what an older one left, pending deliveries included, instead of misreading it. Rows written before
 * versions existed (0.1.0, up to the git-host redesign) have no `v`: version 0, whose shape is version 1's.
 * A version newer than this release knows is refused, never guessed: a downgrade would lose its meaning.
 */
export const EVENT_VERSION = 1
export const LIFECYCLE_VERSION = 1

type Upgrade = (value: Record<string, unknown>) => Record<string, unknown>

/** `UPGRADES[n]` turns version n into n + 1. */
const EVENT_UPGRADES: readonly Upgrade[] = [(event) => event]
const LIFECYCLE_UPGRADES: readonly Upgrade[] = [(lifecycle) => lifecycle]

function read(text: string, what: string, current: number, upgrades: readonly Upgrade[]): Record<string, unknown> {
  const { v, ...value } = JSON.parse(text) as Record<string, unknown>
  const version = v === undefined ? 0 : v
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0 || version > current) {
    throw new PrheraldError('stored_version', `a stored ${what} has version ${String(version)}; this prherald reads up to ${current}`, {
      fix: 'it was written by a newer prherald: run that version again (the row is kept as it is)',
    })
  }
  let upgraded = value
  for (let n = version; n < current; n++) upgraded = upgrades[n]!(upgraded)
  return upgraded
}

export const storedEvent = (event: LifecycleEvent): string => JSON.stringify({ v: EVENT_VERSION, ...event })

export const readStoredEvent = (text: string): LifecycleEvent =>
  read(text, 'event', EVENT_VERSION, EVENT_UPGRADES) as unknown as LifecycleEvent

export const storedLifecycle = (lifecycle: StoredLifecycle): string => JSON.stringify({ v: LIFECYCLE_VERSION, ...lifecycle })

export const readStoredLifecycle = (text: string): StoredLifecycle =>
  read(text, 'lifecycle', LIFECYCLE_VERSION, LIFECYCLE_UPGRADES) as unknown as StoredLifecycle
