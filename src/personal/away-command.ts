import type { AssignmentStore } from '../store/assignment-store.ts'

export const AWAY_HELP = '• `/prherald away until 2026-12-24` / `away off`: nobody assigns you reviews (`assign:`) through that day, or from now on again'

/** The UTC day of `now`, as `/prherald away until` days are written. */
export const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10)

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** A calendar day that exists: 2026-02-30 is refused, not rolled over. */
function isDay(text: string): boolean {
  if (!DAY.test(text)) return false
  const date = new Date(`${text}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text
}

/**
 * `/prherald away until <day>` and `/prherald away off`: the person's own mark (migrations/0047), read by
 * assign's skip_away (src/assign/away-check.ts) on every replica. The day is inclusive, in UTC.
 */
export async function awayCommand(store: Pick<AssignmentStore, 'setAway'>, me: string, argument: string, now: number): Promise<string> {
  const words = argument.split(/\s+/).filter(Boolean)
  if (words.length === 1 && (words[0] === 'off' || words[0] === 'back')) {
    await store.setAway(me, undefined, now)
    return 'Welcome back: reviews can be assigned to you again.'
  }
  const day = words[0] === 'until' && words.length === 2 ? words[1]! : undefined
  if (day === undefined || !isDay(day)) return 'Write `/prherald away until 2026-12-24` (the last day you are away, YYYY-MM-DD) or `/prherald away off`.'
  if (day < dayOf(now)) return `${day} has passed; give the last day you are away, today or later.`
  await store.setAway(me, day, now)
  return `Away until ${day} (inclusive, UTC): nobody assigns you reviews until then. \`/prherald away off\` ends it sooner.`
}
