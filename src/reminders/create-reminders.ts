import { pullRequestKey, type Provider } from '../../machines/pull-request-event.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { holidayTest, parseHolidayCalendar } from '../config/digest-calendar.ts'
import { mappedId, type PeopleMap } from '../config/people-map.ts'
import type { DirectMessageSettings, ReminderSettings } from '../config/settings.ts'
import { parseWorkingDuration, workingDurationMs, workingTimeWords } from '../config/working-duration.ts'
import { DEFAULT_WORKING_HOURS, parseWorkingHours, workingMillisBetween, type WorkingHours } from '../config/working-hours.ts'
import { isPrheraldError } from '../errors.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { PersonDirectory } from '../personal/person-directory.ts'
import { openPullRequests } from '../personal/pull-request-lists.ts'
import { wantsDirectMessages } from '../personal/queue-direct-messages.ts'
import type { Outbox } from '../slack/outbox.ts'
import { renderEscalationLine, renderReminderLine } from '../slack/render-reminder.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { ReminderHold, ReminderStore } from '../store/reminder-store.ts'
import { hasMessage, type DirectMessageStore, type MessageStore, type PreferenceStore, type SharedWork } from '../store/store.ts'
import { holdersOf, type Holder } from './holders-of.ts'
import { reminderStep } from './reminder-step.ts'

/** How often the reminder job looks at the open pull requests: a reminder is due at most this late. */
export const REMINDER_SWEEP_MS = 5 * 60_000

export interface RemindersDeps {
  reminders: ReminderSettings
  directMessages: DirectMessageSettings
  /** `digest.holidays`: the days nobody's working time counts. */
  holidays: string | undefined
  /** Each host's `users:`: only people mapped there are reminded. */
  users: ReadonlyMap<Provider, PeopleMap>
  store: MessageStore & ReminderStore & DirectMessageStore & PreferenceStore & Pick<SharedWork, 'lockPullRequest'>
  directory: PersonDirectory
  outbox: Outbox
  pacer: SlackPacer
  logger: Logger
  /** The direct-message sender runs now: a reminder was queued. */
  kickDirectMessages: () => void
}

interface Current { context: PullRequestContext; holder: Holder; slackUser: string }

/** One person's working clock: their hours and zone (directory), the holiday calendar's days off. */
interface PersonClock {
  hours: WorkingHours
  between(from: number, to: number): number
}

/**
 * Reminders (docs/review-loop.md#reminders), the scheduler's `reminders` job: each run reads the open pull
 * requests' stored messages, works out who holds each one (holders-of.ts), keeps a hold row per person and pull
 * request (since when), and for each hold of someone mapped in `users:` who wants direct messages, did not mute
 * the pull request and did not snooze it: queues the reminder that is due as a direct message (the one sender
 * posts it through the outbox), and once, the line in the pull request's thread (through the outbox, under the
 * pull request's lock). Every replica runs it; the rows make each reminder once (migrations/0046_reminders.sql).
 */
export function createReminders(deps: RemindersDeps) {
  const { logger } = deps
  const span = (text: string) => parseWorkingDuration(text)!
  const spans = { after: span(deps.reminders.after), every: span(deps.reminders.every), escalate: span(deps.reminders.escalateAfter) }
  let isHoliday: ((date: string) => boolean) | undefined
  // The holiday tables load on the first reminder, not at start (digest-calendar.ts).
  const holiday = (date: string) => (isHoliday ??= deps.holidays ? holidayTest(parseHolidayCalendar(deps.holidays)) : () => false)(date)

  const clockOf = async (user: string, now: number): Promise<PersonClock> => {
    const { hours: text, timeZone } = await deps.directory.hoursOf(user, now)
    const hours = parseWorkingHours(text) ?? parseWorkingHours(DEFAULT_WORKING_HOURS)!
    return { hours, between: (from, to) => workingMillisBetween(from, to, timeZone, hours, holiday) }
  }

  /** Who holds each open pull request now, by `<pr key> <Slack user>` (mapped people only, each once), and the open pull requests' keys. */
  const currentHolds = async (): Promise<{ current: Map<string, Current>; open: Set<string> }> => {
    const current = new Map<string, Current>()
    const prs = openPullRequests(await deps.store.openMessages())
    for (const { context } of prs) {
      const users = deps.users.get(context.provider)
      for (const holder of holdersOf(context)) {
        const slackUser = users && mappedId(users, holder.key)
        const key = `${pullRequestKey(context)} ${slackUser}`
        if (slackUser && !current.has(key)) current.set(key, { context, holder, slackUser })
      }
    }
    return { current, open: new Set(prs.map((p) => pullRequestKey(p.context))) }
  }

  /** Whether the person's reminders about the pull request are held: a snooze that has not run out (one that has goes). */
  const snoozed = async (user: string, prKey: string, clock: PersonClock, now: number, snoozes: Map<string, { snoozedAt: number; span: string }>) => {
    const snooze = snoozes.get(`${prKey} ${user}`)
    if (!snooze) return false
    const length = parseWorkingDuration(snooze.span)
    if (length && clock.between(snooze.snoozedAt, now) < workingDurationMs(length, clock.hours)) return true
    await deps.store.endSnooze(user, prKey)
    return false
  }

  /** The thread line, in each channel's thread, once per hold (its reply key) under the pull request's lock. */
  const escalate = async (hold: ReminderHold, now: Current, text: string, at: number): Promise<void> => {
    const ref = { provider: now.context.provider, repository: `${now.context.owner}/${now.context.repo}`, prNumber: now.context.number }
    const lock = await deps.store.lockPullRequest(hold.prKey)
    try {
      for (const message of (await deps.store.findMessages(ref)).filter(hasMessage)) {
        const facts = { pr: hold.prKey, slack_user: hold.recipient }
        logger.info('reminder: telling the thread who holds the pull request', { ...facts, channel: message.channel })
        try {
          await deps.outbox.reply({
            ref, channel: message.channel, threadTs: message.ts, replyKey: `reminder:${hold.recipient}:${hold.since}`, text, facts,
            call: (method, run) => deps.pacer.call(method, message.channel, run, lock.lost),
          })
        } catch (error) {
          // Refused for good (an archived channel, say): that thread is not told, and the line is not tried again.
          if (!isPrheraldError(error, 'slack_permanent')) throw error
          logger.warn('slack refused the reminder line in the thread', { ...facts, channel: message.channel, slack_error: error.message, fix: error.fix })
        }
      }
      await deps.store.markEscalated(hold, at)
    } finally {
      await lock()
    }
  }

  /** One hold's due reminder and thread line. */
  const step = async (hold: ReminderHold, now: Current, at: number, snoozes: Map<string, { snoozedAt: number; span: string }>): Promise<boolean> => {
    const user = hold.recipient
    if (!(await wantsDirectMessages(deps.directMessages, deps.store, user)) || (await deps.store.isMuted(user, hold.prKey))) return false
    const clock = await clockOf(user, at)
    if (await snoozed(user, hold.prKey, clock, at, snoozes)) return false
    const waitedMs = clock.between(hold.since, at)
    const due = reminderStep(hold, waitedMs, hold.remindedAt === null ? 0 : clock.between(hold.remindedAt, at), {
      afterMs: workingDurationMs(spans.after, clock.hours), everyMs: workingDurationMs(spans.every, clock.hours), escalateMs: workingDurationMs(spans.escalate, clock.hours),
    })
    const waited = workingTimeWords(waitedMs, clock.hours)
    let queued = false
    if (due.remind) {
      // The key is the hold and the reminder's count: a replica or a retry that queues it again queues nothing.
      const count = hold.reminders + 1
      await deps.store.queueDirectMessages([{
        recipient: user, dmKey: `reminder:${hold.prKey}:${hold.since}:${count}`, prKey: hold.prKey,
        body: renderReminderLine(now.context, hold.role, now.holder.why, waited), dueAt: await deps.directory.deliveryTime(user, at), createdAt: at,
      }])
      queued = await deps.store.countReminder(hold, count, at)
      if (queued) logger.info('reminder queued', { pr: hold.prKey, slack_user: user, role: hold.role, count })
    }
    if (due.escalate) await escalate(hold, now, renderEscalationLine(user, hold.role, now.holder.why, waited), at)
    return queued
  }

  return async function runReminders(at: number): Promise<void> {
    const { current, open } = await currentHolds()
    const snoozes = new Map((await deps.store.snoozes()).map((s) => [`${s.prKey} ${s.slackUser}`, s]))
    let queued = false
    const seen = new Set<string>()
    for (const hold of await deps.store.reminderHolds()) {
      const key = `${hold.prKey} ${hold.recipient}`
      const now = current.get(key)
      // It no longer holds it (reviewed, merged, a draft again), or holds it otherwise: a new hold starts below.
      if (!now || now.holder.role !== hold.role) {
        await deps.store.endHold(hold)
        continue
      }
      seen.add(key)
      try {
        if (await step(hold, now, at, snoozes)) queued = true
      } catch (error) {
        if (error instanceof ShutdownInterrupt) throw error
        logger.warn('reminder not sent; tried again at the next round', { pr: hold.prKey, slack_user: hold.recipient, ...errorFields(error) })
      }
    }
    for (const [key, now] of current) {
      if (seen.has(key)) continue
      await deps.store.startHold({ prKey: pullRequestKey(now.context), recipient: now.slackUser, role: now.holder.role, since: at })
      logger.debug('reminder hold started', { pr: pullRequestKey(now.context), slack_user: now.slackUser, role: now.holder.role })
    }
    // A snooze of a pull request that is no longer open (merged, closed, a draft again) has nothing left to hold.
    for (const s of snoozes.values()) if (!open.has(s.prKey)) await deps.store.endSnooze(s.slackUser, s.prKey)
    if (queued) deps.kickDirectMessages()
    logger.debug('reminders looked at', { holds: current.size })
  }
}
