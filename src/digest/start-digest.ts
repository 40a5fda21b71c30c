import { array, assert, boolean, number, object, optional, string } from 'superstruct'
import type { ControlHandler } from '../control/control-response.ts'
import { PrheraldError } from '../errors.ts'
import type { Scheduler } from '../scheduler/scheduler.ts'
import { digestDay } from './digest-day.ts'
import { digestSchedules } from './digest-schedules.ts'
import { runDigest, type DigestRunDeps, type DigestRunResult } from './run-digest.ts'

export interface StartDigestDeps extends DigestRunDeps {
  scheduler: Pick<Scheduler, 'add' | 'nextRuns'>
  /** Told how each run that was this process's to make ended (metrics: prherald_digest_runs_total). */
  onRun?: (result: 'posted' | 'skipped' | 'failed') => void
}

/** What prherald-digest sends over the control channel. */
const DigestCommand = object({ at: optional(number()), channels: optional(array(string())), dryRun: optional(boolean()), force: optional(boolean()) })

/**
 * The server's digest: one scheduled job per distinct schedule (`digest:<schedule>`, cron in digest.timezone),
 * each run claimed by the scheduler for its day in that zone so that of several processes on one database only
 * one posts; and the control command that runs it by hand (no claim, as the command line does). Returns the
 * command's handler. A run missed while no process was up is not made up: the digest is about the morning.
 */
export function startDigest(deps: StartDigestDeps): ControlHandler {
  const { logger, digest, scheduler } = deps
  // A channel that had its digest already is that run's to count; a skipped day or nothing stuck is `skipped`.
  const report = (r: DigestRunResult) => {
    if (r.alreadyPosted > 0 && r.postedChannels + r.failedChannels === 0) return
    deps.onRun?.(r.failedChannels > 0 ? 'failed' : r.postedChannels > 0 ? 'posted' : 'skipped')
  }
  const schedules = digestSchedules(deps.mappings, digest)
  for (const schedule of schedules) {
    scheduler.add({
      name: `digest:${schedule}`,
      when: { cron: schedule, timezone: digest.timezone },
      period: (at) => digestDay(at, digest.timezone, undefined).date,
      run: async ({ at }) => report(await runDigest(deps, { at, schedules: [schedule], dryRun: false })),
      onError: () => deps.onRun?.('failed'),
    })
  }
  for (const { name, at } of scheduler.nextRuns()) {
    const schedule = name.slice('digest:'.length)
    if (!name.startsWith('digest:') || !schedules.includes(schedule)) continue
    logger.info('digest scheduled', { schedule, timezone: digest.timezone, next_run: at === undefined ? undefined : new Date(at).toISOString() })
  }
  const handler: ControlHandler = async (body) => {
    try {
      assert(body, DigestCommand)
    } catch {
      throw new PrheraldError('usage', 'the digest command expects { at?: unix ms, channels?: [channel IDs], dryRun?: boolean, force?: boolean }', {
        fix: 'run prherald-digest of the same version as the server',
      })
    }
    const dryRun = body.dryRun ?? false
    const result = await runDigest(deps, { at: body.at ?? Date.now(), channels: body.channels, dryRun, force: body.force ?? false })
    if (!dryRun) report(result)
    return { lines: result.lines, exitCode: result.failedChannels > 0 ? 1 : 0 }
  }
  return handler
}
