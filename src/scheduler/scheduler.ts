/**
 * The one scheduler: every timed job of the service (the digest, the daily cleanup, the direct-message sender,
 * the reminders, the weekly summary, the relink sweep) runs through it, "at a time, or every period, once per period across replicas and
 * restarts". Its one claim is `JobClaims.claimRun(job, period)` (the job_runs table): of every process on the
 * database, exactly one runs a job's period; a run that fails after its claim is not retried for that period.
 *
 * Adding a job is one `scheduler.add({...})` in the composition root (src/service.ts):
 *
 *   scheduler.add({
 *     name: 'weekly-summary',                              // unique; the claim's job name
 *     when: { cron: '30 9 * * 1', timezone: 'Europe/Berlin' }, // croner syntax; or { everyMs: 3_600_000, atStart: true }
 *     period: (at) => isoWeekOf(at),                       // the period `at` falls in; one run per period. Leave it
 *                                                          // out when every replica should run every time (the job's
 *                                                          // own rows make it once, as the direct messages' do)
 *     run: async ({ at, period }) => { ... },              // through the outbox for anything it posts
 *   })
 *
 * A cron job fires only at its times: a run missed while no process was up is not made up later. An interval
 * job runs at start too when `atStart`. Either may be run now with `kick(name)` (the direct messages when one
 * is queued). One run of a job at a time: a firing while it runs is folded into one more run after it. Timers
 * are unref'd, never keeping the process alive; errors are logged and the next firing still happens. Each run's
 * end is a debug line (`scheduled job run ended`, with `job`): the second to end after a moment began after it.
 */
import { Cron, type CronOptions } from 'croner'
import { UTC } from '../config/digest-calendar.ts'
import { isPrheraldError, PrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { JobClaims } from '../store/store.ts'

export interface JobContext {
  /** The moment the run is for (unix ms, from the scheduler's clock). */
  at: number
  /** The period claimed for this run; undefined for a job without periods. */
  period: string | undefined
}

export interface Job {
  name: string
  when: { cron: string; timezone: string } | { everyMs: number; atStart?: boolean }
  /** The period a run at `at` belongs to; the run is claimed for it. Absent: no claim, every replica runs. */
  period?: (at: number) => string
  run(context: JobContext): Promise<void>
  /** Told when a run fails (besides the log line), e.g. for a metric. */
  onError?: (error: unknown) => void
}

export interface SchedulerDeps {
  store: Pick<JobClaims, 'claimRun'>
  logger: Logger
  /** The clock a run's `at` is read from; tests move it. Cron times are croner's (the system clock). */
  now?: () => number
}

export interface Scheduler {
  /** Adds a job; it fires once `start` has been called. */
  add(job: Job): void
  /** Arms every job's timer, and runs the interval jobs that run at start. */
  start(): void
  /** Runs the job now (its period claimed as at any firing); a run under way is followed by one more. */
  kick(name: string): void
  /** Fires the job as its timer would, and resolves once that run (and any folded into it) has ended: for tests and commands. */
  fire(name: string): Promise<void>
  /** The next moment each cron job fires (unix ms). */
  nextRuns(): Array<{ name: string; at: number | undefined }>
  /** Stops every timer, then waits for the runs under way until `deadline`; true when they all ended by then. */
  stop(deadline: number): Promise<boolean>
}

interface Entry {
  job: Job
  running: Promise<void> | undefined
  again: boolean
  /** A cron job's pattern, read in its zone: its next time is known before the job is armed. */
  pattern?: Cron
  cron?: Cron
  timer?: NodeJS.Timeout
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { logger } = deps
  const now = deps.now ?? Date.now
  const entries = new Map<string, Entry>()
  let started = false
  let stopped = false

  const once = async (entry: Entry): Promise<void> => {
    const { job } = entry
    const at = now()
    try {
      const period = job.period?.(at)
      if (period !== undefined && !(await deps.store.claimRun(job.name, period))) {
        logger.debug('job already ran for this period', { job: job.name, period })
        return
      }
      await job.run({ at, period })
    } catch (error) {
      if (error instanceof ShutdownInterrupt) return logger.debug('job interrupted by shutdown', { job: job.name })
      job.onError?.(error)
      logger.error('job failed; it runs again at its next time', { job: job.name, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined })
    }
  }
  const fire = (entry: Entry): Promise<void> => {
    if (stopped) return Promise.resolve()
    if (entry.running) {
      entry.again = true
      return entry.running
    }
    entry.running = (async () => {
      do {
        entry.again = false
        await once(entry)
        // Whatever the run did (or found claimed, or failed): what waits for a job's next round can see it ended.
        logger.debug('scheduled job run ended', { job: entry.job.name })
      } while (entry.again && !stopped)
    })().finally(() => { entry.running = undefined })
    return entry.running
  }
  const entryOf = (name: string): Entry => {
    const entry = entries.get(name)
    if (!entry) throw new PrheraldError('usage', `no scheduled job named ${name}`)
    return entry
  }
  const arm = (entry: Entry) => {
    const { when } = entry.job
    if ('cron' in when) {
      entry.cron = new Cron(when.cron, { ...zoneOf(when.timezone), unref: true }, () => { void fire(entry) })
      return
    }
    entry.timer = setInterval(() => { void fire(entry) }, when.everyMs)
    entry.timer.unref()
    if (when.atStart) void fire(entry)
  }

  return {
    add(job) {
      if (entries.has(job.name)) throw new PrheraldError('usage', `a scheduled job named ${job.name} exists already`, { fix: 'give each job its own name' })
      const { when } = job
      // croner without a function only reads the pattern (its README: "const nextSundays = new Cron('0 0 0 * * 7').nextRuns(100);").
      const entry: Entry = { job, running: undefined, again: false, pattern: 'cron' in when ? new Cron(when.cron, zoneOf(when.timezone)) : undefined }
      entries.set(job.name, entry)
      if (started) arm(entry)
    },
    start() {
      if (started) return
      started = true
      for (const entry of entries.values()) arm(entry)
    },
    kick: (name) => { void fire(entryOf(name)) },
    fire: (name) => fire(entryOf(name)),
    nextRuns: () => [...entries.values()].flatMap((e) => e.pattern ? [{ name: e.job.name, at: (e.cron ?? e.pattern).nextRun()?.getTime() }] : []),
    async stop(deadline) {
      stopped = true
      for (const entry of entries.values()) {
        entry.cron?.stop()
        clearInterval(entry.timer)
      }
      const runs = Promise.all([...entries.values()].map((e) => e.running)).then(() => true)
      return Promise.race([runs, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())).unref())])
    },
  }
}

/** croner reads a `timezone` through Intl and its ICU tables; a zero `utcOffset` is the same schedule in plain UTC arithmetic. */
function zoneOf(timezone: string): Pick<CronOptions, 'timezone' | 'utcOffset'> {
  return timezone === UTC ? { utcOffset: 0 } : { timezone }
}
