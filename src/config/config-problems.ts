import type { Failure } from 'superstruct'
import type { Mappings } from './schema.ts'

export interface ConfigProblem {
  /** Dotted key path in the file, e.g. `mappings.acme.api.channel`. */
  key: string
  /** The key as a path, when the key's line is to be looked up in the file. */
  path?: string[]
  /** The line in the file, where it is known. */
  line?: number | undefined
  /** What is wrong and what to write instead. */
  message: string
}

const KNOWN_KEYS: Record<string, string> = {
  '': 'git_provider, server, database, cleanup, slack, mappings',
  server: 'listen, log_format, log_level, shutdown_timeout_seconds',
  database: 'url',
  cleanup: 'message_ttl_days',
  slack: 'reactions',
  'slack.reactions': 'approved, commented, changes_requested, merged, closed, draft, bot',
}

function parentKnownKeys(path: string[]): string {
  if (path[0] === 'mappings') return path.length === 5 ? 'channel, mentions' : 'channel, mentions, paths'
  return KNOWN_KEYS[path.slice(0, -1).join('.')] ?? ''
}

export function describeFailure(failure: Failure): ConfigProblem {
  const path = failure.path.map(String)
  const key = path.join('.') || '(top level)'
  if (failure.type === 'never') {
    return { key, message: `unknown key; remove it or fix its spelling (allowed here: ${parentKnownKeys(path)})` }
  }
  if (failure.value === undefined) {
    return { key, message: key === 'git_provider' ? 'is required; set it to github or bitbucket' : 'is required' }
  }
  if (failure.refinement !== undefined) return { key, message: failure.message }
  if (failure.type === 'enums') {
    const allowed = failure.message.match(/Expected one of `(.*)`/)?.[1]
    return { key, message: `${JSON.stringify(failure.value)} is not allowed; use one of ${allowed ?? 'the documented values'}` }
  }
  return { key, message: `expected ${failure.type === 'record' ? 'a map' : failure.type}, found ${JSON.stringify(failure.value)}` }
}

/** Rules that span entries: inheritance from the owner's `"*"` entry must leave every repository a channel. */
export function mappingProblems(mappings: Mappings): ConfigProblem[] {
  const problems: ConfigProblem[] = []
  for (const [owner, repos] of Object.entries(mappings)) {
    if (owner === '*') {
      problems.push({ key: 'mappings.*', path: ['mappings', '*'], message: 'a wildcard owner is not supported; list each owner (organisation or workspace) and use "*" for its repositories' })
      continue
    }
    const star = repos['*']
    if (star && !star.channel) {
      problems.push({ key: `mappings.${owner}.*.channel`, path: ['mappings', owner, '*'], message: `is required: the "*" entry is the channel for ${owner}'s unlisted repositories` })
    }
    if (star?.paths) {
      problems.push({ key: `mappings.${owner}.*.paths`, path: ['mappings', owner, '*', 'paths'], message: 'path rules belong to a repository entry; move them under mappings.<owner>.<repo>.paths' })
    }
    for (const [repo, entry] of Object.entries(repos)) {
      if (repo === '*' || entry.channel || star?.channel) continue
      problems.push({
        key: `mappings.${owner}.${repo}.channel`,
        path: ['mappings', owner, repo],
        message: `is required: set a channel here or in mappings.${owner}."*"`,
      })
    }
  }
  return problems
}
