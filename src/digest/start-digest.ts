import { array, assert, boolean, number, object, optional, string } from 'superstruct'
import type { ControlHandler } from '../control/control-response.ts'
import { PrheraldError } from '../errors.ts'
import { ShutdownInterrupt } from '../effects/retry-transient.ts'
import { errorFields } from '../log/logger.ts'
import { startDigestScheduler } from './digest-scheduler.ts'
import { digestSchedules } from './digest-schedules.ts'
import { runDigest, type DigestRunDeps } from './run-digest.ts'

/** What prherald-digest sends over the control channel. */
const DigestCommand = object({ at: optional(number()), channels: optional(array(string())), dryRun: optional(boolean()) })

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
export function startDigest(deps: DigestRunDeps): RunningDigest {
  const { logger, digest } = deps
  const scheduler = startDigestScheduler({
    schedules: digestSchedules(deps.mappings, digest),
    timezone: digest.timezone,
    run: async (schedule, at) => { await runDigest(deps, { at, schedules: [schedule], dryRun: false, claim: true }) },
    onError: (schedule, error) => {
      if (error instanceof ShutdownInterrupt) return logger.debug('digest interrupted by shutdown', { schedule })
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
      throw new PrheraldError('usage', 'the digest command expects { at?: unix ms, channels?: [channel IDs], dryRun?: boolean }', {
        fix: 'run prherald-digest of the same version as the server',
      })
    }
    const result = await runDigest(deps, { at: body.at ?? Date.now(), channels: body.channels, dryRun: body.dryRun ?? false, claim: false })
    return { lines: result.lines, exitCode: result.failedChannels > 0 ? 1 : 0 }
  }
  return { handler, stop: () => scheduler.stop() }
}
