import type { AssignSettings } from '../routing/resolve-route.ts'
import { escapeText } from './render-message.ts'

const STRATEGY_WORDS: Record<AssignSettings['strategy'], string> = { round_robin: 'round robin', least_busy: 'least busy' }

/** Someone named in the line: as the host shows them, and their Slack user when `users:` maps them. */
export interface AssignedPerson {
  name: string
  slackUser?: string | undefined
}

/**
 * The thread's line for an assignment: "Assigned <@U…> (round robin; erin is away)". A chosen person is
 * mentioned where mapped (the thread tells them), a passed-over one only named. Pure.
 */
export function renderAssignment(chosen: readonly AssignedPerson[], strategy: AssignSettings['strategy'], skipped: ReadonlyArray<AssignedPerson & { why: string }>): string {
  const names = chosen.map((p) => (p.slackUser ? `<@${p.slackUser}>` : escapeText(p.name)))
  const list = names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  const notes = [STRATEGY_WORDS[strategy], ...skipped.map((s) => `${escapeText(s.name)} ${s.why}`)]
  return `Assigned ${list} (${notes.join('; ')})`
}
