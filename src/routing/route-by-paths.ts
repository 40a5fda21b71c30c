import type { PathRoute } from './resolve-route.ts'

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
