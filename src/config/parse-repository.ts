import { PrheraldError } from '../errors.ts'
import { HOSTS } from '../hosts/registry.ts'

/**
 * `<owner>/<repo>` from the command line (Bitbucket: `<workspace>/<slug>`); `owner/*` names a catch-all entry.
 * The repository is the last segment: an owner may be a nested group (`group/subgroup/project`).
 */
export function parseRepository(arg: string): { owner: string; repo: string } {
  const match = /^((?:[^/\s]+\/)*[^/\s]+)\/([^/\s]+)$/.exec(arg.trim())
  if (!match) {
    // Every host's form: the command line does not say which host the repository is on.
    const forms = [...HOSTS.values()].map((host) => `${host.words.name}: ${host.words.repositoryExample}`).join('; ')
    throw new PrheraldError('usage', `"${arg}" is not a repository`, { fix: `write it as <owner>/<repo>, e.g. acme/api (${forms})` })
  }
  return { owner: match[1]!, repo: match[2]! }
}
