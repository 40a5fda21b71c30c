import { HOST_IDS } from '../hosts/registry.ts'
import { oneOf, type ConfigProblem } from './config-problems.ts'
import type { ConfigDocument, HostBlockDocument } from './schema.ts'

/** One host's part of the file, wherever it was written. */
export interface HostBlock extends HostBlockDocument {
  /** The host's id (src/hosts/registry.ts). */
  id: string
  /** Where the block's keys sit in the file: `['hosts', id]`, or `[]` for the single-host form. */
  at: string[]
}

/**
 * The file's hosts, in the registry's order. The single-host form (`git_provider:` with `mappings:`, `users:`
 * and `teams:` at the top) reads as exactly `hosts: { <git_provider>: { … } }`.
 */
export function hostBlocks(doc: Pick<ConfigDocument, 'git_provider' | 'hosts' | 'mappings' | 'users' | 'teams' | 'follow'>): HostBlock[] {
  if (doc.hosts === undefined) {
    if (doc.git_provider === undefined || doc.mappings === undefined) return []
    return [{ id: doc.git_provider, at: [], mappings: doc.mappings, users: doc.users, teams: doc.teams, follow: doc.follow }]
  }
  const hosts = doc.hosts
  return HOST_IDS.flatMap((id) => {
    const block = hosts[id]
    return block === undefined ? [] : [{ id, at: ['hosts', id], ...block }]
  })
}

/** The dotted key of a block's `key`, and its path for the line look-up. */
export function blockKey(block: Pick<HostBlock, 'at'>, ...key: string[]): Pick<ConfigProblem, 'key' | 'path'> {
  const path = [...block.at, ...key]
  return { key: path.join('.'), path }
}

const ONE_FORM_FIX = 'either list every host under hosts: (hosts: { github: { mappings: …, users: …, teams: … } }), or keep the single-host form: git_provider: with mappings:, users: and teams: at the top'

/** Which form the file is in: exactly one of them, complete. */
export function formProblems(doc: Pick<ConfigDocument, 'git_provider' | 'hosts' | 'mappings' | 'users' | 'teams' | 'follow'>): ConfigProblem[] {
  if (doc.hosts !== undefined) {
    const problems: ConfigProblem[] = []
    if (doc.git_provider !== undefined) {
      problems.push({ key: 'git_provider', path: ['git_provider'], message: `is set beside hosts:; remove git_provider (hosts: names every host): ${ONE_FORM_FIX}` })
    }
    for (const key of ['mappings', 'users', 'teams', 'follow'] as const) {
      if (doc[key] !== undefined) problems.push({ key, path: [key], message: `is at the top beside hosts:; move it under the host it belongs to, e.g. hosts.${doc.git_provider ?? HOST_IDS[0]}.${key}` })
    }
    if (Object.values(doc.hosts).every((block) => block === undefined)) {
      problems.push({ key: 'hosts', path: ['hosts'], message: `lists no host; add one of ${HOST_IDS.join(', ')} with its mappings` })
    }
    return problems
  }
  if (doc.git_provider === undefined) {
    return [{ key: 'git_provider', message: `is required; set it to ${oneOf(HOST_IDS)}, or list several hosts under hosts: (hosts: { github: { mappings: … }, gitlab: { mappings: … } })` }]
  }
  if (doc.mappings === undefined) return [{ key: 'mappings', message: `is required with git_provider: ${doc.git_provider}; map at least one owner to a channel` }]
  return []
}

/**
 * A Slack user may be mapped on several hosts (alice on GitHub, alice.smith on GitLab); their own settings
 * (direct_messages, working_hours) are one person's, so blocks that disagree are refused rather than one
 * silently winning.
 */
export function personSettingProblems(blocks: readonly HostBlock[]): ConfigProblem[] {
  const seen = new Map<string, { where: string; directMessages: unknown; workingHours: unknown }>()
  const problems: ConfigProblem[] = []
  for (const block of blocks) {
    for (const [key, value] of Object.entries(block.users ?? {})) {
      if (typeof value === 'string') continue
      const where = blockKey(block, 'users', key)
      const first = seen.get(value.slack)
      if (first === undefined) {
        seen.set(value.slack, { where: where.key, directMessages: value.direct_messages, workingHours: value.working_hours })
      } else if (first.directMessages !== value.direct_messages || first.workingHours !== value.working_hours) {
        problems.push({ ...where, message: `maps ${value.slack} with other settings than ${first.where} (direct_messages, working_hours); one person has one set: write the same values in both, or keep them in one place and write the bare id here` })
      }
    }
  }
  return problems
}
