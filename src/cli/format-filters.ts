import type { Route } from '../routing/resolve-route.ts'

/** `ignore` as each mapping entry ends up with it (inherited from "*" key by key), for `prherald-config list`. */
export function formatFilters(routes: readonly Route[]): string[] {
  const lines = routes.flatMap((r) => {
    const { labels, title, authors } = r.ignore
    const parts = [
      ...(labels.length > 0 ? [`labels ${labels.join(', ')}`] : []),
      ...(title.length > 0 ? [`title ${title.map((t) => JSON.stringify(t)).join(', ')}`] : []),
      ...(authors.length > 0 ? [`authors ${authors.join(', ')}`] : []),
    ]
    return parts.length > 0 ? [`  ${r.owner}/${r.repo}: ${parts.join('; ')}`] : []
  })
  // Nothing when no entry filters: the listing of a configuration without filters stays as it was.
  return lines.length > 0 ? ['ignore (pull requests not announced):', ...lines] : []
}
