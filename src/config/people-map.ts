/**
 * `users:` and `teams:` as Settings keeps them: plain maps from the git host's identifier to a bare Slack id.
 * Hosts whose logins and team slugs ignore case (GitHub, GitLab) have their keys stored lower-cased; others
 * (Bitbucket account ids) are kept exactly as written.
 */
export type PeopleMap = Readonly<Record<string, string>>

export function normalisePeopleMap(caseInsensitive: boolean, map: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).map(([key, id]) => [caseInsensitive ? key.toLowerCase() : key, id]))
}

/**
 * The Slack id mapped to `key`, or undefined: the key as given, else lower-cased (a case-insensitive host's
 * map holds only lower-cased keys, so a login in any case finds it; a case-sensitive host's ids are issued by
 * the host in one case, so the second look finds nothing there). Own keys only, so `constructor` maps to nothing.
 */
export function mappedId(map: PeopleMap, key: string): string | undefined {
  if (Object.hasOwn(map, key)) return map[key]
  const lower = key.toLowerCase()
  return Object.hasOwn(map, lower) ? map[lower] : undefined
}
