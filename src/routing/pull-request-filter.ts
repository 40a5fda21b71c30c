import type { PullRequestFacts } from '../../machines/pull-request-event.ts'
import { compileTitleGlob, matchesTitleGlob } from '../config/title-glob.ts'

/**
 * A mapping entry's (or a `follow` entry's) `ignore` or `only`, after inheritance from its owner's `"*"`
 * (each key replaces the inherited one).
 */
export interface PullRequestFilter {
  labels: readonly string[]
  title: readonly string[]
  authors: readonly string[]
  /** Globs on the target branch. */
  into: readonly string[]
  /** Globs on the source branch. */
  from: readonly string[]
}

/** Both sides of an entry's gate: announced where it matches every key `only` names and no key of `ignore`. */
export interface PullRequestGate {
  only: PullRequestFilter
  ignore: PullRequestFilter
}

/**
 * `labels_unknown` / `branch_unknown`: the entry filters on labels (branches) and the delivery does not say
 * which the pull request has. `not_*`: a key of `only` the pull request does not match.
 */
export type FilterMatch =
  | 'label' | 'labels_unknown' | 'title' | 'author' | 'into' | 'from' | 'branch_unknown'
  | 'not_labels' | 'not_title' | 'not_authors' | 'not_into' | 'not_from'

export const NO_FILTER: PullRequestFilter = { labels: [], title: [], authors: [], into: [], from: [] }
export const NO_GATE: PullRequestGate = { only: NO_FILTER, ignore: NO_FILTER }

/** What the filters read of a pull request. */
type FilteredFacts = { pr: Pick<PullRequestFacts, 'title' | 'author' | 'authorAccountId' | 'labels' | 'labelsUnknown' | 'into' | 'from'> }

const lower = (values: readonly string[]) => new Set(values.map((v) => v.toLowerCase()))

const hasLabel = (labels: readonly string[], pr: FilteredFacts['pr']) => pr.labels?.some((l) => lower(labels).has(l.toLowerCase())) === true
const isAuthor = (authors: readonly string[], pr: FilteredFacts['pr']) => {
  const set = lower(authors)
  return set.has(pr.author.toLowerCase()) || (pr.authorAccountId !== undefined && set.has(pr.authorAccountId.toLowerCase()))
}
// Branch globs read like title globs (`*` any run of characters, `/` included; `?` one), without regard to case.
const globMatch = (patterns: readonly string[], value: string) => patterns.some((pattern) => matchesTitleGlob(compileTitleGlob(pattern), value))

/**
 * Why `ignore` keeps a pull request out of Slack, or undefined. Labels and authors are compared without
 * regard to case (the hosts show them so); an author is matched by login and, on Bitbucket, by account id. Pure.
 */
export function filterMatch(filter: PullRequestFilter, event: FilteredFacts): FilterMatch | undefined {
  const { pr } = event
  if (filter.labels.length > 0 && hasLabel(filter.labels, pr)) return 'label'
  // Held back rather than announced with labels nobody saw: the host's next delivery with labels decides.
  if (filter.labels.length > 0 && pr.labelsUnknown) return 'labels_unknown'
  if (filter.authors.length > 0 && isAuthor(filter.authors, pr)) return 'author'
  if (filter.title.length > 0 && globMatch(filter.title, pr.title)) return 'title'
  for (const key of ['into', 'from'] as const) {
    if (filter[key].length === 0) continue
    const branch = pr[key]
    // A delivery without branches (GitHub's issue_comment) is held back the same way.
    if (branch === undefined) return 'branch_unknown'
    if (globMatch(filter[key], branch)) return key
  }
  return undefined
}

/** Which key of `only` the pull request misses, or undefined when it matches every key `only` names. Pure. */
export function onlyMiss(only: PullRequestFilter, event: FilteredFacts): FilterMatch | undefined {
  const { pr } = event
  if (only.labels.length > 0 && !hasLabel(only.labels, pr)) return pr.labelsUnknown ? 'labels_unknown' : 'not_labels'
  if (only.authors.length > 0 && !isAuthor(only.authors, pr)) return 'not_authors'
  if (only.title.length > 0 && !globMatch(only.title, pr.title)) return 'not_title'
  for (const key of ['into', 'from'] as const) {
    if (only[key].length === 0) continue
    const branch = pr[key]
    if (branch === undefined) return 'branch_unknown'
    if (!globMatch(only[key], branch)) return key === 'into' ? 'not_into' : 'not_from'
  }
  return undefined
}

/** Why the gate keeps the pull request out (`ignore` first, then `only`), or undefined when it lets it through. */
export function gateMatch(gate: PullRequestGate, event: FilteredFacts): FilterMatch | undefined {
  return filterMatch(gate.ignore, event) ?? onlyMiss(gate.only, event)
}

/** The tier's `only` or `ignore` laid over the owner's `"*"`'s: each key the entry sets replaces the inherited one. */
export function layFilter(star: FilterKeysDocument | undefined, entry: FilterKeysDocument | undefined): PullRequestFilter {
  return {
    labels: entry?.labels ?? star?.labels ?? [],
    title: [entry?.title ?? star?.title ?? []].flat(),
    authors: entry?.authors ?? star?.authors ?? [],
    into: entry?.into ?? star?.into ?? [],
    from: entry?.from ?? star?.from ?? [],
  }
}

/** A filter as the config file writes it (`title` may be one glob). */
export interface FilterKeysDocument {
  labels?: readonly string[] | undefined
  title?: string | readonly string[] | undefined
  authors?: readonly string[] | undefined
  into?: readonly string[] | undefined
  from?: readonly string[] | undefined
}
