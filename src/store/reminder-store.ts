import { statements } from './dialect.ts'
import type { StoreDriver } from './store-driver.ts'

/** Who holds a pull request: asked to review it, or its author while it waits on them. */
export type HoldRole = 'review' | 'author'

/** One person holding one open pull request, as the reminder job saw it (migrations/0046_reminders.sql). */
export interface ReminderHold {
  prKey: string
  /** The Slack user. */
  recipient: string
  role: HoldRole
  /** Since when (unix ms): the reminder job's first sight of the hold. */
  since: number
  /** Reminders queued so far. */
  reminders: number
  remindedAt: number | null
  escalatedAt: number | null
}

/** `/prherald snooze`: one person's reminders about one pull request held for `span` of their working time. */
export interface ReminderSnooze {
  slackUser: string
  prKey: string
  snoozedAt: number
  span: string
}

/** The reminder job's rows (src/reminders/). */
export interface ReminderStore {
  reminderHolds(): Promise<ReminderHold[]>
  /** Records a hold unless the person holds the pull request already (another replica's sight of it is kept). */
  startHold(hold: Pick<ReminderHold, 'prKey' | 'recipient' | 'role' | 'since'>): Promise<void>
  /** Ends that hold (by its start: a newer hold another replica began is kept). */
  endHold(hold: Pick<ReminderHold, 'prKey' | 'recipient' | 'since'>): Promise<void>
  /** Counts reminder `count` (the one after `count - 1`) as queued at `at`: true for the one caller that moved it. */
  countReminder(hold: Pick<ReminderHold, 'prKey' | 'recipient' | 'since'>, count: number, at: number): Promise<boolean>
  markEscalated(hold: Pick<ReminderHold, 'prKey' | 'recipient' | 'since'>, at: number): Promise<void>
  /** Snoozes (or snoozes again, from `snoozedAt`) one person's reminders about one pull request. */
  snooze(snooze: ReminderSnooze): Promise<void>
  snoozes(): Promise<ReminderSnooze[]>
  endSnooze(slackUser: string, prKey: string): Promise<void>
}

/** Exported for the query-plan test (test/store/query-plans.test.ts). Both tables hold open pull requests' rows only. */
export const reminderQueries = statements({
  holds: 'SELECT * FROM reminder_holds',
  startHold: `INSERT INTO reminder_holds (pr_key, recipient, role, since) VALUES (?, ?, ?, ?)
    ON CONFLICT (pr_key, recipient) DO NOTHING`,
  endHold: 'DELETE FROM reminder_holds WHERE pr_key = ? AND recipient = ? AND since = ?',
  // The compare-and-set: of two replicas counting the same reminder, one moves the count.
  countReminder: 'UPDATE reminder_holds SET reminders = ?, reminded_at = ? WHERE pr_key = ? AND recipient = ? AND since = ? AND reminders = ?',
  markEscalated: 'UPDATE reminder_holds SET escalated_at = ? WHERE pr_key = ? AND recipient = ? AND since = ? AND escalated_at IS NULL',
  snooze: `INSERT INTO reminder_snoozes (slack_user, pr_key, snoozed_at, span) VALUES (?, ?, ?, ?)
    ON CONFLICT (slack_user, pr_key) DO UPDATE SET snoozed_at = excluded.snoozed_at, span = excluded.span`,
  snoozes: 'SELECT * FROM reminder_snoozes',
  endSnooze: 'DELETE FROM reminder_snoozes WHERE slack_user = ? AND pr_key = ?',
})

interface HoldRow {
  pr_key: string
  recipient: string
  role: string
  since: number | string
  reminders: number | string
  reminded_at: number | string | null
  escalated_at: number | string | null
}

interface SnoozeRow {
  slack_user: string
  pr_key: string
  snoozed_at: number | string
  span: string
}

const millis = (value: number | string | null): number | null => (value === null ? null : Number(value))

export function createReminderStore(driver: StoreDriver): ReminderStore {
  const q = reminderQueries
  const change = async (...steps: Parameters<StoreDriver['write']>[0]) => { await driver.write(steps) }
  return {
    reminderHolds: async () => (await driver.read<HoldRow>(q.holds)).map((r) => ({
      prKey: r.pr_key, recipient: r.recipient, role: r.role === 'author' ? 'author' : 'review', since: Number(r.since),
      reminders: Number(r.reminders), remindedAt: millis(r.reminded_at), escalatedAt: millis(r.escalated_at),
    })),
    startHold: (h) => change([q.startHold, [h.prKey, h.recipient, h.role, h.since]]),
    endHold: (h) => change([q.endHold, [h.prKey, h.recipient, h.since]]),
    async countReminder(h, count, at) {
      const [moved] = await driver.write([[q.countReminder, [count, at, h.prKey, h.recipient, h.since, count - 1]]])
      return moved === 1
    },
    markEscalated: (h, at) => change([q.markEscalated, [at, h.prKey, h.recipient, h.since]]),
    snooze: (s) => change([q.snooze, [s.slackUser, s.prKey, s.snoozedAt, s.span]]),
    snoozes: async () => (await driver.read<SnoozeRow>(q.snoozes)).map((r) => ({ slackUser: r.slack_user, prKey: r.pr_key, snoozedAt: Number(r.snoozed_at), span: r.span })),
    endSnooze: (slackUser, prKey) => change([q.endSnooze, [slackUser, prKey]]),
  }
}
