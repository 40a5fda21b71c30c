import type { PullRequestEvent } from '../../machines/pull-request-event.ts'
import { compileTitleGlob, matchesTitleGlob } from '../config/title-glob.ts'

/** A mapping entry's `ignore`, after inheritance from its owner's `"*"` (each key replaces the inherited one). */
export interface PullRequestFilter {
  labels: readonly string[]
  title: readonly string[]
  authors: readonly string[]
}

/** `labels_unknown`: the entry ignores labels and the delivery does not say which the pull request has. */
export type FilterMatch = 'label' | 'labels_unknown' | 'title' | 'author'

export const NO_FILTER: PullRequestFilter = { labels: [], title: [], authors: [] }

const lower = (values: readonly string[]) => new Set(values.map((v) => v.toLowerCase()))

/**
 * Why the filter keeps a pull request out of Slack, or undefined. Labels and authors are compared without
 * regard to case (the hosts show them so); an author is matched by login and, on Bitbucket, by account id. Pure.
 */
export function filterMatch(filter: PullRequestFilter, event: Pick<PullRequestEvent, 'pr'>): FilterMatch | undefined {
  const { pr } = event
  if (filter.labels.length > 0 && pr.labels?.some((l) => lower(filter.labels).has(l.toLowerCase()))) return 'label'
  // Held back rather than announced with labels nobody saw: the host's next delivery with labels decides.
  if (filter.labels.length > 0 && pr.labelsUnknown) return 'labels_unknown'
  if (filter.authors.length > 0) {
    const authors = lower(filter.authors)
    if (authors.has(pr.author.toLowerCase()) || (pr.authorAccountId !== undefined && authors.has(pr.authorAccountId.toLowerCase()))) return 'author'
  }
  if (filter.title.some((pattern) => matchesTitleGlob(compileTitleGlob(pattern), pr.title))) return 'title'
  return undefined
}
