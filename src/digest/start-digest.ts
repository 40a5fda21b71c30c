import { array, assert, boolean, number, object, optional, string } from 'superstruct'
import type { ControlHandler } from '../control/control-response.ts'
import { PrheraldError } from '../errors.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import { errorFields } from '../log/logger.ts'
import { startDigestScheduler } from './digest-scheduler.ts'
import { digestSchedules } from './digest-schedules.ts'
import { runDigest, type DigestRunDeps, type DigestRunResult } from './run-digest.ts'

export interface StartDigestDeps extends DigestRunDeps {
  /** Told how each run that was this process's to make ended (metrics: prherald_digest_runs_total). */
  onRun?: (result: 'posted' | 'skipped' | 'failed') => void
}

/** What prherald-digest sends over the control channel. */
const DigestCommand = object({ at: optional(number()), channels: optional(array(string())), dryRun: optional(boolean()), force: optional(boolean()) })

export interface RunningDigest {
  /** The `digest` control command: prherald-digest hands its run to the server through it. */
  handler: ControlHandler
  stop(): void
}

/**
 * The server's digest: one scheduled job per distinct schedule in digest.timezone, each run claimed for its day
 * (`digest:<schedule>`) so that of several processes on one database only one posts, and the control command
 * that runs it by hand (no claim, as the command line does).
 */
export function startDigest(deps: StartDigestDeps): RunningDigest {
  const { logger, digest } = deps
  // A run another process claimed is that process's to count; a skipped day or nothing stuck is `skipped`.
  const report = (r: DigestRunResult) => {
    if (r.claimedElsewhere + r.alreadyPosted > 0 && r.postedChannels + r.failedChannels === 0) return
    deps.onRun?.(r.failedChannels > 0 ? 'failed' : r.postedChannels > 0 ? 'posted' : 'skipped')
  }
  const scheduler = startDigestScheduler({
    schedules: digestSchedules(deps.mappings, digest),
    timezone: digest.timezone,
    run: async (schedule, at) => report(await runDigest(deps, { at, schedules: [schedule], dryRun: false, claim: true })),
    onError: (schedule, error) => {
      if (error instanceof ShutdownInterrupt) return logger.debug('digest interrupted by shutdown', { schedule })
      deps.onRun?.('failed')
      logger.error('digest failed', { schedule, ...errorFields(error), fix: error instanceof PrheraldError ? error.fix : undefined })
    },
  })
  for (const { schedule, at } of scheduler.nextRuns()) {
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
    const result = await runDigest(deps, { at: body.at ?? Date.now(), channels: body.channels, dryRun, claim: false, force: body.force ?? false })
    if (!dryRun) report(result)
    return { lines: result.lines, exitCode: result.failedChannels > 0 ? 1 : 0 }
  }
  return { handler, stop: () => scheduler.stop() }
}
