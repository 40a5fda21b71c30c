import type { PullRequestFilter } from '../routing/pull-request-filter.ts'
import type { Route } from '../routing/resolve-route.ts'

/** One filter's keys on a line (`labels wip; into "main", "release/*"`); '' when it sets none. */
export function filterParts(filter: PullRequestFilter): string {
  const { labels, title, authors, into, from } = filter
  const globs = (values: readonly string[]) => values.map((t) => JSON.stringify(t)).join(', ')
  return [
    ...(labels.length > 0 ? [`labels ${labels.join(', ')}`] : []),
    ...(title.length > 0 ? [`title ${globs(title)}`] : []),
    ...(authors.length > 0 ? [`authors ${authors.join(', ')}`] : []),
    ...(into.length > 0 ? [`into ${globs(into)}`] : []),
    ...(from.length > 0 ? [`from ${globs(from)}`] : []),
  ].join('; ')
}

/** `ignore` and `only` as each mapping entry ends up with them (inherited from "*" key by key), for `prherald-config list`. */
export function formatFilters(routes: readonly Route[]): string[] {
  const section = (title: string, pick: (r: Route) => PullRequestFilter) => {
    const lines = routes.flatMap((r) => {
      const parts = filterParts(pick(r))
      return parts === '' ? [] : [`  ${r.owner}/${r.repo}: ${parts}`]
    })
    return lines.length > 0 ? [title, ...lines] : []
  }
  // Nothing when no entry filters: the listing of a configuration without filters stays as it was.
  return [
    ...section('only (pull requests announced only when they match every key):', (r) => r.only),
    ...section('ignore (pull requests not announced):', (r) => r.ignore),
  ]
}
