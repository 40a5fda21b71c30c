import type { Provider } from '../../machines/pull-request-event.ts'

/**
 * `users:` and `teams:` as Settings keeps them: plain maps from the git host's identifier to a bare Slack id.
 * GitHub logins and team slugs ignore case, so their keys are stored lower-cased and looked up the same way;
 * Bitbucket account ids are kept exactly as written.
 */
export type PeopleMap = Readonly<Record<string, string>>

const keyFor = (provider: Provider, key: string) => (provider === 'github' ? key.toLowerCase() : key)

export function normalisePeopleMap(provider: Provider, map: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).map(([key, id]) => [keyFor(provider, key), id]))
}

/** The Slack id mapped to `key`, or undefined. Own keys only, so a login such as `constructor` maps to nothing. */
export function mappedId(map: PeopleMap, provider: Provider, key: string): string | undefined {
  const normal = keyFor(provider, key)
  return Object.hasOwn(map, normal) ? map[normal] : undefined
}
