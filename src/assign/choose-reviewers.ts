import type { AssignSettings } from '../routing/resolve-route.ts'

/** What the choice knows of the team and the pull request; keys are `users:` keys as the host names people. */
export interface ChoiceFacts {
  /** The team's members, in a stable order (sorted): round_robin walks it. */
  members: readonly string[]
  /** Never chosen: the author and everyone asked (or who reviewed) already. */
  excluded: ReadonlySet<string>
  /** Members passed over, with why (`is away`, `is out of office`, `is away until 2026-12-24`); only with skip_away. */
  away: ReadonlyMap<string, string>
  /** round_robin: the reviewers of the team's last assignment; the walk starts after the last of them. */
  last: readonly string[]
  /** least_busy: each member's open review requests across every host. */
  load: ReadonlyMap<string, number>
}

export interface Choice {
  chosen: string[]
  /** The members passed over for being away, in the walk's order, each with why. */
  skipped: Array<{ member: string; why: string }>
}

/** The members in round_robin's order: the one after the last assigned first, around the team once. */
function rotation(members: readonly string[], last: readonly string[]): string[] {
  const at = Math.max(...last.map((l) => members.indexOf(l)), -1)
  return [...members.slice(at + 1), ...members.slice(0, at + 1)]
}

/**
 * Who of the team is asked to review (docs/review-loop.md, "Assigning reviewers"). Pure. round_robin takes
 * the next members after the last assignment's; least_busy the members with the fewest open review requests,
 * ties broken in round_robin's order, so that an idle team still takes turns. Neither ever takes the author or
 * someone asked already; with skip_away, nobody away. Fewer than `count` when the team has fewer to give.
 */
export function chooseReviewers(settings: Pick<AssignSettings, 'count' | 'strategy' | 'skipAway'>, facts: ChoiceFacts): Choice {
  const order = rotation(facts.members, facts.last).filter((m) => !facts.excluded.has(m))
  const walk = settings.strategy === 'least_busy'
    ? order.map((m, i) => ({ m, i, load: facts.load.get(m) ?? 0 })).sort((a, b) => a.load - b.load || a.i - b.i).map((e) => e.m)
    : order
  const chosen: string[] = []
  const skipped: Choice['skipped'] = []
  for (const member of walk) {
    if (chosen.length >= settings.count) break
    const why = settings.skipAway ? facts.away.get(member) : undefined
    if (why === undefined) chosen.push(member)
    else skipped.push({ member, why })
  }
  return { chosen, skipped }
}
