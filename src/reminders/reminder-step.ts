import type { ReminderHold } from '../store/reminder-store.ts'

/** `notify.reminders` as milliseconds of one person's working time. */
export interface ReminderSpans {
  afterMs: number
  everyMs: number
  escalateMs: number
}

/**
 * What one hold is due, given the working time it has waited and the working time since its last reminder:
 * the first reminder once it has waited `after`, each next one `every` after the last, and the thread line
 * once, when it has waited `escalate_after`. Pure.
 */
export function reminderStep(hold: Pick<ReminderHold, 'reminders' | 'escalatedAt'>, waitedMs: number, sinceLastMs: number, spans: ReminderSpans): { remind: boolean; escalate: boolean } {
  const remind = waitedMs >= spans.afterMs && (hold.reminders === 0 || sinceLastMs >= spans.everyMs)
  return { remind, escalate: hold.escalatedAt === null && waitedMs >= spans.escalateMs }
}
