import type { ConfigProblem } from './config-problems.ts'
import { blockKey, type HostBlock } from './host-blocks.ts'

/**
 * The routing keys' own refusals (docs/routing.md): a glob that no branch can match, a code owner in a form
 * CODEOWNERS does not name, and a `follow` entry that follows nobody. Each says what to write instead.
 */

/** Characters git forbids in a branch name (`git check-ref-format`); `?` and `*` are the glob's own. */
const NOT_IN_A_BRANCH = /[\s~^:\\[]/

export function branchGlobProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'an empty pattern matches no branch; write a branch name or a glob such as "release/*"'
  if (pattern.startsWith('refs/')) return `"${pattern}" is a full ref; write the branch name as the host shows it, e.g. ${pattern.replace(/^refs\/heads\//, '')}`
  if (NOT_IN_A_BRANCH.test(pattern) || pattern.includes('..') || pattern.startsWith('/') || pattern.endsWith('/') || pattern.endsWith('.lock')) {
    return `"${pattern}" cannot match a git branch name (no spaces, ~ ^ : \\ [, "..", or a leading or trailing /); write e.g. "main" or "release/*"`
  }
  if (pattern.length > 200) return `the pattern is ${pattern.length} characters long; keep it to 200`
  return undefined
}

const OWNER_NAME = /^@[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function codeOwnerProblem(owner: string): string | undefined {
  if (OWNER_NAME.test(owner) || EMAIL.test(owner)) return undefined
  if (/^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.-]+)*$/.test(owner)) return `"${owner}" lacks its @; write it as CODEOWNERS does: "@${owner}"`
  return `"${owner}" is not a code owner; write it as CODEOWNERS names it: "@user", "@org/team", "@group/subgroup" or an email`
}

/** Each `follow` entry follows someone: `authors` or `team`, not both. */
export function followProblems(block: Pick<HostBlock, 'at' | 'follow'>): ConfigProblem[] {
  return (block.follow ?? []).flatMap((entry, i): ConfigProblem[] => {
    const where = blockKey(block, 'follow', String(i))
    if (entry.authors === undefined && entry.team === undefined) {
      return [{ ...where, message: 'follows nobody; add authors: [login, …] or team: <team slug>' }]
    }
    if (entry.authors !== undefined && entry.team !== undefined) {
      return [{ ...where, message: 'sets both authors and team; keep one (write a second follow entry for the other)' }]
    }
    return []
  })
}
