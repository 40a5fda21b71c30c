import { PrheraldError } from '../errors.ts'
import { bitbucket } from './bitbucket/index.ts'
import type { GitHost } from './contract.ts'
import { github } from './github/index.ts'
import { gitlab } from './gitlab/index.ts'

/** Every git host prherald speaks to, by `git_provider`. A new host is a folder and a line here. */
export const HOSTS: ReadonlyMap<string, GitHost> = new Map([github, bitbucket, gitlab].map((host) => [host.id, host]))

export const HOST_IDS: readonly string[] = [...HOSTS.keys()]

/** The host of a `git_provider` the config schema has already accepted. */
export function hostOf(id: string): GitHost {
  const host = HOSTS.get(id)
  if (!host) throw new PrheraldError('config_invalid', `unknown git_provider "${id}"`, { fix: `use one of: ${HOST_IDS.join(', ')}` })
  return host
}
