import { DEFAULTS, type ReactionKey, type ReactionSettings } from '../config/settings.ts'
import { applyReactionTier } from '../config/reactions.ts'
import type { Route } from '../routing/resolve-route.ts'

/** Columns padded to the widest cell; the last column is not padded. */
export function formatTable(rows: readonly string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? []
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd())
}

/** One channel's mentions as they are; several channels' mentions each prefixed by their channel when they differ. */
function mentionsColumn(route: Route): string {
  const distinct = new Set(route.targets.map((t) => t.mentions.join(' ')))
  if (distinct.size <= 1) return route.targets[0]!.mentions.join(' ') || '-'
  return route.targets.map((t) => `${t.channel}: ${t.mentions.join(' ') || '-'}`).join('; ')
}

/** The emoji an entry ends up with, as the keys that differ from the built-in defaults; `off` when disabled. */
function reactionsColumn(route: Route, global: ReactionSettings): string {
  const effective = applyReactionTier(global, route.reactions)
  if (!effective.enabled) return 'off'
  const changed = Object.entries(effective.names).filter(([key, name]) => DEFAULTS.reactions[key as ReactionKey] !== name)
  const parts = [...(effective.newPr ? [['new_pr', effective.newPr]] : []), ...changed].map(([key, name]) => `${key}=${name}`)
  return parts.length > 0 ? parts.join(' ') : 'default'
}

/** `assign:` after inheritance and defaults: `backend x1 round_robin skip_away`. */
function assignColumn(route: Route): string {
  const a = route.assign
  return a ? `${a.team} x${a.count} ${a.strategy}${a.skipAway ? ' skip_away' : ''}` : '-'
}

/**
 * `prherald-config list`: one row per entry, with what each entry inherits from its owner's "*" (and, for
 * reactions, from the global `slack.reactions`) already filled in.
 */
export function formatRoutes(routes: readonly Route[], reactions: ReactionSettings): string[] {
  // The ASSIGN column only where some entry assigns reviewers: a file without `assign:` lists as before.
  const assigns = routes.some((r) => r.assign)
  const rows = routes.map((r) => [
    r.owner,
    r.repo,
    r.targets.map((t) => t.channel).join(' '),
    mentionsColumn(r),
    r.paths.length > 0
      ? r.paths.map((p) => `${p.prefix}→${p.channel}${p.mentions.length > 0 ? ` ${p.mentions.join(' ')}` : ''}`).join('; ')
      : '-',
    reactionsColumn(r, reactions),
    ...(assigns ? [assignColumn(r)] : []),
  ])
  return formatTable([['OWNER', 'REPO', 'CHANNEL', 'MENTIONS', 'PATHS', 'REACTIONS', ...(assigns ? ['ASSIGN'] : [])], ...rows])
}
