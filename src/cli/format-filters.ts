import type { PullRequestFilter } from '../routing/pull-request-filter.ts'
import type { Route } from '../routing/resolve-route.ts'
import type { FollowRoute } from '../routing/route-pull-request.ts'

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

/** `owners:` of each entry (inherited from "*"), for `prherald-config list`; nothing when no entry has any. */
export function formatOwners(routes: readonly Route[]): string[] {
  const lines = routes.filter((r) => r.owners.length > 0).map((r) =>
    `  ${r.owner}/${r.repo}: ${r.owners.map((o) => `${o.owner}→${o.channel}${o.mentions.length > 0 ? ` ${o.mentions.join(' ')}` : ''}`).join('; ')}`)
  return lines.length > 0 ? ['owners (code owners\' channels, by CODEOWNERS at the target branch):', ...lines] : []
}

/** The host's `follow:` entries, for `prherald-config list`; nothing when there are none. */
export function formatFollow(follow: readonly FollowRoute[]): string[] {
  const lines = follow.map((f) => {
    const who = f.team !== undefined ? `team ${f.team}` : `authors ${f.authors.join(', ')}`
    const where = f.repositories.length > 0 ? `; repositories ${f.repositories.map((r) => JSON.stringify(r)).join(', ')}` : '; every repository'
    const only = filterParts(f.gate.only)
    const ignore = filterParts(f.gate.ignore)
    return `  ${f.rule} → ${f.channel}${f.mentions.length > 0 ? ` ${f.mentions.join(' ')}` : ''}: ${who}${where}${only ? `; only ${only}` : ''}${ignore ? `; ignore ${ignore}` : ''}`
  })
  return lines.length > 0 ? ['follow (these people\'s pull requests, in any repository of this host):', ...lines] : []
}
