import type { Route } from '../routing/resolve-route.ts'

/** Columns padded to the widest cell; the last column is not padded. */
export function formatTable(rows: readonly string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? []
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd())
}

/** `prherald-config list`: one row per entry, with what each entry inherits from its owner's "*" already filled in. */
export function formatRoutes(routes: readonly Route[]): string[] {
  const rows = routes.map((r) => [
    r.owner,
    r.repo,
    r.channel,
    r.mentions.length > 0 ? r.mentions.join(' ') : '-',
    r.paths.length > 0
      ? r.paths.map((p) => `${p.prefix}→${p.channel}${p.mentions.length > 0 ? ` ${p.mentions.join(' ')}` : ''}`).join('; ')
      : '-',
  ])
  return formatTable([['OWNER', 'REPO', 'CHANNEL', 'MENTIONS', 'PATHS'], ...rows])
}
