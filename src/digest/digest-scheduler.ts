import { Cron, type CronOptions } from 'croner'
import { UTC } from '../config/digest-calendar.ts'

export interface DigestSchedulerDeps {
  /** The distinct cron expressions in use (the global schedule and every tier's own). */
  schedules: readonly string[]
  /** The zone every schedule is read in. */
  timezone: string
  /** Runs one schedule's digest for the moment it fired. Its errors go to `onError`; the next run still happens. */
  run: (schedule: string, at: number) => Promise<void>
  onError: (schedule: string, error: unknown) => void
}

export interface DigestScheduler {
  /** The next moment each schedule fires (unix ms), for the start-up log line and tests. */
  nextRuns(): Array<{ schedule: string; at: number | undefined }>
  stop(): void
}

/**
 * One croner job per distinct schedule. A job fires only at its times: a run missed while the process was
 * down is not made up later (the digest is about the morning, not about catching up). Jobs are unref'd, so
 * they never keep the process alive, and `protect` skips a firing while the previous run is still posting.
 */
export function startDigestScheduler(deps: DigestSchedulerDeps): DigestScheduler {
  const jobs = [...new Set(deps.schedules)].map((schedule) => ({
    schedule,
    cron: new Cron(schedule, { ...zoneOf(deps.timezone), unref: true, protect: true }, async () => {
      try {
        await deps.run(schedule, Date.now())
      } catch (error) {
        deps.onError(schedule, error)
      }
    }),
  }))
  return {
    nextRuns: () => jobs.map((job) => ({ schedule: job.schedule, at: job.cron.nextRun()?.getTime() })),
    stop: () => {
      for (const job of jobs) job.cron.stop()
    },
  }
}

/** croner reads a `timezone` through Intl and its ICU tables; a zero `utcOffset` is the same schedule in plain UTC arithmetic. */
function zoneOf(timezone: string): Pick<CronOptions, 'timezone' | 'utcOffset'> {
  return timezone === UTC ? { utcOffset: 0 } : { timezone }
}
