import type { ChangedFile } from '../hosts/list-changed-files.ts'
import type { MessageTarget } from './message-targets.ts'
import type { PathRoute, Route } from './resolve-route.ts'

/**
 * `services/billing` and `services/billing/` are the same rule: the directory, never a name that merely
 * starts with the same letters (`services/billing-v2/`). A leading `./` is tolerated for the same reason.
 */
export function normalizePrefix(prefix: string): string {
  return prefix.replace(/^(\.\/)+/, '').replace(/\/+$/, '')
}

/** The rule with the longest prefix that is the path itself or one of its parent directories. */
export function matchRule(path: string, rules: readonly PathRoute[]): PathRoute | undefined {
  let best: PathRoute | undefined
  let bestLength = -1
  for (const rule of rules) {
    const dir = normalizePrefix(rule.prefix)
    if (dir === '' || !(path === dir || path.startsWith(`${dir}/`))) continue
    // Strictly longer: of two rules written the same way (`a/b` and `a/b/`), the first in the file wins.
    if (dir.length > bestLength) {
      best = rule
      bestLength = dir.length
    }
  }
  return best
}

/**
 * Where a pull request is announced, given its changed files: one target per channel that some rule
 * claimed, in the order the rules are written, each with its rules' mentions merged without duplicates.
 * A rename counts under its old and its new path. When no file matches any rule, the repository's own
 * channels (all of them, with their mentions): path rules replace the repository's channels, never add to them.
 */
export type { ChangedFile }

export function routeByPaths(files: readonly ChangedFile[], route: Pick<Route, 'targets' | 'paths'>): MessageTarget[] {
  const matched = new Set<PathRoute>()
  for (const file of files) {
    for (const path of [file.path, file.previousPath]) {
      const rule = path === undefined ? undefined : matchRule(path, route.paths)
      if (rule) matched.add(rule)
    }
  }
  if (matched.size === 0) return route.targets.map((t) => ({ channel: t.channel, mentions: [...t.mentions] }))

  const byChannel = new Map<string, Set<string>>()
  // Walk the rules, not the files, so the order of messages does not depend on the order of the diff.
  for (const rule of route.paths) {
    if (!matched.has(rule)) continue
    const mentions = byChannel.get(rule.channel) ?? new Set<string>()
    for (const mention of rule.mentions) mentions.add(mention)
    byChannel.set(rule.channel, mentions)
  }
  return [...byChannel].map(([channel, mentions]) => ({ channel, mentions: [...mentions] }))
}
