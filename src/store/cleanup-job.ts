import type { Logger } from '../log/logger.ts'
import type { JobClaims } from './store.ts'
import { DEFAULTS } from '../config/settings.ts'

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * How long applied delivery ids and body digests are kept however short `cleanup.message_ttl_days` is: a
 * host's redelivery (GitHub keeps its delivery log 3 days) is then still a duplicate, and a captured body
 * sent again under a new id is still a replay (docs/security.md, "Replayed deliveries").
 */
export const REPLAY_WINDOW_DAYS = 7

export interface CleanupDeps {
  store: Pick<JobClaims, 'forgetBefore'>
  logger: Logger
  ttlDays: number
  /** `insights.keep_days`: turnaround rows are kept this long after their last change, whatever `ttlDays` is. */
  turnaroundKeepDays?: number
  now?: () => number
}

/**
 * Forgets `slack_messages` rows untouched for `ttlDays` (the Slack messages themselves stay; a later
 * event on such a PR posts a fresh one), applied delivery ids older than that, and once-per-run claims too.
 */
export async function runCleanup(deps: CleanupDeps): Promise<{ messages: number; deliveries: number; runClaims: number }> {
  const cutoff = (deps.now ?? Date.now)() - deps.ttlDays * DAY_MS
  const replayCutoff = Math.min(cutoff, (deps.now ?? Date.now)() - REPLAY_WINDOW_DAYS * DAY_MS)
  // A claim only has to outlive its run's day; ttl_days is at least one, so today's claims always stay. The
  // record of a reply outlives a replay by far; once the message is aged out, nothing replays into it.
  const turnaroundCutoff = (deps.now ?? Date.now)() - (deps.turnaroundKeepDays ?? DEFAULTS.insights.keepDays) * DAY_MS
  const { messages, deliveries, bodies, runClaims, threadRecords, slackRequests, directMessages, reviewForms, personActions, turnaround } =
    await deps.store.forgetBefore(cutoff, replayCutoff, turnaroundCutoff)
  deps.logger.info('cleanup finished', {
    deleted_messages: messages, deleted_deliveries: deliveries, deleted_bodies: bodies, deleted_run_claims: runClaims,
    deleted_thread_records: threadRecords, deleted_slack_requests: slackRequests, deleted_direct_messages: directMessages,
    deleted_review_forms: reviewForms, deleted_person_actions: personActions, deleted_turnaround_rows: turnaround, ttl_days: deps.ttlDays,
  })
  return { messages, deliveries, runClaims }
}

/** The run a cleanup at `at` belongs to: its UTC date. The scheduler claims each (`cleanup`, date) once among every process on the database. */
export const cleanupRunKey = (at: number): string => new Date(at).toISOString().slice(0, 10)
