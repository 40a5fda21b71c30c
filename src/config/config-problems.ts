import type { GitHost } from '../hosts/contract.ts'
import type { Failure } from 'superstruct'
import { allowedKeys } from './allowed-keys.ts'
import { PROVIDERS, type Mappings } from './schema.ts'

/** `github, bitbucket or gitlab`. */
export const oneOf = (values: readonly string[]) => values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`

export interface ConfigProblem {
  /** Dotted key path in the file, e.g. `mappings.acme.api.channel`. */
  key: string
  /** The key as a path, when the key's line is to be looked up in the file. */
  path?: ReadonlyArray<string | number>
  /** The line in the file, where it is known. */
  line?: number | undefined
  /** What is wrong and what to write instead. */
  message: string
}

export function describeFailure(failure: Failure): ConfigProblem {
  const path = failure.path.map(String)
  const key = path.join('.') || '(top level)'
  if (failure.type === 'never') {
    return { key, message: `unknown key; remove it or fix its spelling (allowed here: ${allowedKeys(failure).join(', ')})` }
  }
  if (failure.value === undefined) {
    return { key, message: key === 'git_provider' ? `is required; set it to ${oneOf(PROVIDERS)}` : 'is required' }
  }
  if (failure.refinement !== undefined) return { key, message: failure.message }
  if (failure.type === 'union' && path.includes('mappings') && path.at(-2) === 'channels') {
    return { key, message: `${JSON.stringify(failure.value)} is not a channel; write a channel ID (C0123456789) or { id: C0123456789, mentions: [...] }` }
  }
  if (failure.type === 'array' && path.at(-1) === 'channels' && Array.isArray(failure.value)) {
    return { key, message: `lists ${failure.value.length} channels; list from 1 to 50 channel IDs` }
  }
  if (failure.type === 'enums') {
    const allowed = failure.message.match(/Expected one of `(.*)`/)?.[1]
    return { key, message: `${JSON.stringify(failure.value)} is not allowed; use one of ${allowed ?? 'the documented values'}` }
  }
  return { key, message: `expected ${failure.type === 'record' ? 'a map' : failure.type}, found ${JSON.stringify(failure.value)}` }
}

/** Rules that span entries: inheritance from the owner's `"*"` entry must leave every repository a channel. */
export function mappingProblems(mappings: Mappings, at: readonly string[] = [], host?: Pick<GitHost, 'words' | 'nestedOwners'>): ConfigProblem[] {
  const problems: ConfigProblem[] = []
  const keyOf = (...path: string[]) => ({ key: [...at, ...path].join('.'), path: [...at, ...path] })
  for (const [owner, repos] of Object.entries(mappings)) {
    if (owner === '*') {
      problems.push({ ...keyOf('mappings', '*'), message: 'a wildcard owner is not supported; list each owner (organisation or workspace) and use "*" for its repositories' })
      continue
    }
    if (host && !host.nestedOwners && owner.includes('/')) {
      // A GitLab-style group path under a host whose owners are one name: no delivery could ever match it.
      const [first = owner, ...rest] = owner.split('/')
      problems.push({ ...keyOf('mappings', owner), message: `"${owner}" cannot match: a ${host.words.name} ${host.words.owner} is one name, without "/"; write the ${host.words.owner} and then the repository: ${[...at, 'mappings'].join('.')}: { ${first}: { ${rest.join('/')}: { channel: … } } } (nested groups are GitLab's)` })
      continue
    }
    for (const [repo, entry] of Object.entries(repos)) {
      if (entry.channel && entry.channels) {
        problems.push({ ...keyOf('mappings', owner, repo), message: 'sets both channel and channels; keep one (channels: [C…, C…] lists several)' })
      }
      const ids = (entry.channels ?? []).map((c) => (typeof c === 'string' ? c : c.id))
      const repeated = ids.find((id, i) => ids.indexOf(id) !== i)
      if (repeated) problems.push({ ...keyOf('mappings', owner, repo, 'channels'), message: `lists ${repeated} twice; each channel gets one message, list it once` })
    }
    const star = repos['*']
    const hasChannel = (entry: { channel?: string; channels?: unknown[] } | undefined) => Boolean(entry?.channel || entry?.channels)
    if (star && !hasChannel(star)) {
      problems.push({ key: [...at, 'mappings', owner, '*', 'channel'].join('.'), path: [...at, 'mappings', owner, '*'], message: `is required (or channels): the "*" entry is the channel for ${owner}'s unlisted repositories` })
    }
    if (star?.paths) {
      problems.push({ ...keyOf('mappings', owner, '*', 'paths'), message: `path rules belong to a repository entry; move them under ${[...at, 'mappings'].join('.')}.<owner>.<repo>.paths` })
    }
    for (const [repo, entry] of Object.entries(repos)) {
      if (repo === '*' || hasChannel(entry) || hasChannel(star)) continue
      problems.push({
        key: [...at, 'mappings', owner, repo, 'channel'].join('.'),
        path: [...at, 'mappings', owner, repo],
        message: `is required: set a channel (or channels) here or in ${[...at, 'mappings', owner].join('.')}."*"`,
      })
    }
  }
  return problems
}
