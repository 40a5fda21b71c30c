import type { Settings, WeeklySetting } from '../config/settings.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { Scheduler } from '../scheduler/scheduler.ts'
import type { Outbox } from '../slack/outbox.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { TurnaroundStore } from '../store/turnaround-store.ts'
import type { WeeklyPostStore } from '../store/weekly-post-store.ts'
import { renderChart } from './render-chart.ts'
import { workingClockOf } from './stats-report.ts'
import type { WorkingClock } from './turnaround-figures.ts'
import { isoWeekOf, PREVIOUS_WEEKS, weeklySummary } from './weekly-summary.ts'

const WEEK_MS = 7 * 24 * 60 * 60 * 1000
/** A weekly post is held this many `database.lease_seconds`: long enough to render and upload, short enough to be taken over soon. */
export const WEEKLY_HOLD_LEASES = 4
/** A channel keeps this many weeks of rows; older ones go when it gets its next post. */
const KEPT_WEEKS = 8

/** The weekly summary of the turnaround rows as of `at`: its text and its chart as PNG (what a post shares, and a dry run shows). */
export interface WeeklyPost {
  text: string
  png: Buffer
}

export interface WeeklyFigureDeps {
  store: TurnaroundStore
  clock: () => WorkingClock
  /** How the text names the working hours, e.g. `08:00-19:00 UTC`. */
  hours: string
}

/** The figures' deps from the settings: `notify.working_hours` in `notify.time_zone`, `digest.holidays` left out (stats-report.ts). */
export function weeklyFigureDeps(settings: Pick<Settings, 'directMessages' | 'digest'>, store: TurnaroundStore): WeeklyFigureDeps {
  return { store, clock: workingClockOf(settings), hours: `${settings.directMessages.workingHours} ${settings.directMessages.timeZone}` }
}

/** Reads the five weeks' rows before `at` and makes the summary and its chart. */
export async function buildWeeklyPost(deps: WeeklyFigureDeps, at: number): Promise<WeeklyPost> {
  const rows = await deps.store.turnaroundSince(at - (PREVIOUS_WEEKS + 1) * WEEK_MS)
  const summary = weeklySummary(rows, at, deps.clock(), deps.hours)
  return { text: summary.text, png: await renderChart(summary.weeks) }
}

export interface WeeklyDeps extends WeeklyFigureDeps {
  store: TurnaroundStore & WeeklyPostStore
  outbox: Pick<Outbox, 'weekly'>
  pacer: SlackPacer
  logger: Logger
  /** This replica, as the week's row names its holder. */
  owner: string
  /** How long a hold lasts: a replica that dies holding a post lets it go after this. */
  holdMs: number
  now?: () => number
}

/**
 * One channel's post for one week, made as of `asOf`, by whichever replica holds the week's row: the first to
 * ask, or one that asks once the holder's time ran out without it being done (that replica died or failed).
 * Anyone else returns at once. Through the outbox; a failure is logged with its fix, and the week's row is
 * taken again once the hold runs out (src/insights/start-weekly.ts).
 */
export async function postWeekly(deps: WeeklyDeps, post: { channel: string; week: string; asOf: number }): Promise<void> {
  const now = deps.now ?? Date.now
  const { channel, week } = post
  const heldUntil = now() + deps.holdMs
  if (!(await deps.store.holdWeeklyPost(post, deps.owner, now(), heldUntil))) {
    deps.logger.debug('weekly summary held by another replica, or done', { channel, week })
    return
  }
  // The row's moment, not ours: a replica finishing another's post makes the same figures.
  const asOf = (await deps.store.weeklyPostOf(channel, week))?.asOf ?? post.asOf
  const facts = { channel, week }
  try {
    const { text, png } = await buildWeeklyPost(deps, asOf)
    const outcome = await deps.outbox.weekly({
      channel, week, text, facts,
      chart: {
        bytes: png, filename: `prherald-weekly-${week}.png`, title: `Review turnaround, ${week}`,
        altText: `Chart: time to first review and to merge (p50, working hours) as lines and pull requests merged as bars, for each of the last ${PREVIOUS_WEEKS + 1} weeks`,
      },
      // A margin of a tenth: the share is not begun in the hold's last moments.
      held: () => now() < heldUntil - deps.holdMs / 10,
      call: (method, run) => deps.pacer.call(method, channel, run),
    })
    deps.logger.info('weekly summary posted', { ...facts, outcome })
    await deps.store.forgetWeeklyPosts(channel, isoWeekOf(asOf - KEPT_WEEKS * WEEK_MS, 'UTC'))
  } catch (error) {
    if (error instanceof ShutdownInterrupt) throw error
    deps.logger.error('weekly summary failed', {
      ...facts, ...errorFields(error),
      fix: isPrheraldError(error) ? error.fix ?? 'see the error; it is tried again once its hold runs out, this week' : 'see the error; it is tried again once its hold runs out, this week',
    })
  }
}

/** croner's day-of-week numbers: 0 is Sunday. */
const CRON_DAY: Record<WeeklySetting['day'], number> = { sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6 }

/** The cron expression of a weekly setting: its weekday and time. */
export function weeklyCron(setting: Pick<WeeklySetting, 'day' | 'at'>): string {
  const [hour, minute] = setting.at.split(':').map(Number)
  return `${minute} ${hour} * * ${CRON_DAY[setting.day]}`
}

/**
 * The weekly summary's jobs on the one scheduler: one per `insights.weekly` channel at its time in
 * `timeZone` (digest.timezone), and one that finishes the posts a replica left (its hold ran out: it died, or
 * failed) every `holdMs`, and at start. The week's row is the claim (weekly_posts, held by one replica at a
 * time), so no job has a scheduler period: every replica fires, one holds. A time missed while no server was
 * up is not made up, as the digest's is not.
 */
export function startWeekly(deps: WeeklyDeps & { scheduler: Pick<Scheduler, 'add'>; weekly: readonly WeeklySetting[]; timeZone: string }): void {
  if (deps.weekly.length === 0) return
  const channels = new Set(deps.weekly.map((w) => w.channel))
  for (const setting of deps.weekly) {
    deps.scheduler.add({
      name: `weekly:${setting.channel}`,
      when: { cron: weeklyCron(setting), timezone: deps.timeZone },
      run: ({ at }) => postWeekly(deps, { channel: setting.channel, week: isoWeekOf(at, deps.timeZone), asOf: at }),
    })
  }
  deps.scheduler.add({
    name: 'weekly:left',
    when: { everyMs: deps.holdMs, atStart: true },
    run: async ({ at }) => {
      for (const left of await deps.store.leftWeeklyPosts(at)) {
        // A channel no longer configured keeps its row; nothing is posted there.
        if (channels.has(left.channel)) await postWeekly(deps, { ...left, asOf: at })
      }
    },
  })
}
