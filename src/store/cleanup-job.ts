import { errorFields, type Logger } from '../log/logger.ts'
import type { Store } from './store.ts'

const DAY_MS = 24 * 60 * 60 * 1000

export interface CleanupDeps {
  store: Store
  logger: Logger
  ttlDays: number
  now?: () => number
  intervalMs?: number
}

/**
 * Forgets `slack_messages` rows untouched for `ttlDays` (the Slack messages themselves stay; a later
 * event on such a PR posts a fresh one), applied delivery ids older than that, and once-per-run claims too.
 */
export async function runCleanup(deps: CleanupDeps): Promise<{ messages: number; deliveries: number; runClaims: number }> {
  const cutoff = (deps.now ?? Date.now)() - deps.ttlDays * DAY_MS
  const messages = await deps.store.deleteMessagesUntouchedSince(cutoff)
  const deliveries = await deps.store.deleteAppliedDeliveriesBefore(cutoff)
  // A claim only has to outlive its run's day; ttl_days is at least one, so today's claims always stay.
  const runClaims = await deps.store.deleteRunClaimsBefore(cutoff)
  deps.logger.info('cleanup finished', { deleted_messages: messages, deleted_deliveries: deliveries, deleted_run_claims: runClaims, ttl_days: deps.ttlDays })
  return { messages, deliveries, runClaims }
}

/** Runs the cleanup now, then every 24 hours on an unref'd timer that never keeps the process alive. */
export async function startCleanupJob(deps: CleanupDeps): Promise<{ stop(): void }> {
  await runCleanup(deps)
  const timer = setInterval(() => {
    runCleanup(deps).catch((error: unknown) => deps.logger.error('cleanup failed', errorFields(error)))
  }, deps.intervalMs ?? DAY_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
