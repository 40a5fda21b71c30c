import type { ConfigLock, LockedEntry } from '../lock/config-lock.ts'
import { entryHash, entryKey } from '../lock/entry-hash.ts'
import { listRoutes, type Route } from '../routing/resolve-route.ts'
import { hasFailure } from './check-result.ts'
import { reportResults, validateEntries, type CheckContext, type OnResult, type ValidationReport } from './validate-entries.ts'

export interface ValidationPlan {
  /** New or changed entries (every entry with `force`), with the hash they will be locked under. */
  stale: Array<{ route: Route; hash: string }>
  /** Entries whose lock record matches the configuration. */
  current: Array<{ route: Route; locked: LockedEntry }>
}

/** Pure: which entries need validating, by comparing each entry's hash with its config.lock record. */
export function planValidation(ctx: Pick<CheckContext, 'host' | 'mappings'>, lock: ConfigLock, gitTokenSet: boolean, force: boolean): ValidationPlan {
  const plan: ValidationPlan = { stale: [], current: [] }
  for (const route of listRoutes(ctx.mappings)) {
    const hash = entryHash(ctx.host.id, route, gitTokenSet)
    const locked = lock.entries[entryKey(route)]
    if (!force && locked?.hash === hash) plan.current.push({ route, locked })
    else plan.stale.push({ route, hash })
  }
  return plan
}

export interface ConfigValidation {
  plan: ValidationPlan
  report: ValidationReport
  ok: boolean
  /** The lock to write when `ok`: current records kept, validated entries stamped, removed entries dropped. */
  nextLock: ConfigLock
  lockChanged: boolean
}

/** Validates the new or changed entries (all with `force`); makes no call at all when every entry is current. */
export async function validateConfig(
  ctx: CheckContext, lock: ConfigLock, options: { gitTokenSet: boolean; force: boolean; now?: Date; onResult?: OnResult },
): Promise<ConfigValidation> {
  const plan = planValidation(ctx, lock, options.gitTokenSet, options.force)
  const report = await validateEntries(ctx, plan.stale.map(({ route }) => route), options.onResult)
  const ok = !hasFailure(reportResults(report))
  const validatedAt = (options.now ?? new Date()).toISOString()
  const entries: Record<string, LockedEntry> = {}
  for (const { route, locked } of plan.current) entries[entryKey(route)] = locked
  for (const { route, hash } of plan.stale) entries[entryKey(route)] = { hash, validated_at: validatedAt }
  const nextLock: ConfigLock = { entries }
  const lockChanged = plan.stale.length > 0 || Object.keys(lock.entries).length !== plan.current.length
  return { plan, report, ok, nextLock, lockChanged }
}
