import type { Secrets, Settings } from '../config/settings.ts'
import { hostOf } from '../hosts/registry.ts'
import type { Logger } from '../log/logger.ts'
import { listRoutes } from './resolve-route.ts'
import { repositoryChannel, type ChooseTargets } from './message-targets.ts'
import { pathTargets } from './path-targets.ts'

/**
 * Per-path routing needs the provider's token to list changed files. Without it the rules are inert, and
 * start-up says so once rather than on every pull request.
 */
export function configureTargets(
  settings: Pick<Settings, 'mappings' | 'gitProvider' | 'api'>, secrets: Pick<Secrets, 'gitAccess'>, logger: Logger,
): ChooseTargets {
  const withPaths = listRoutes(settings.mappings).filter((r) => r.paths.length > 0)
  if (withPaths.length === 0) return repositoryChannel
  const host = hostOf(settings.gitProvider)
  const variable = host.variables.token
  const api = host.connect(secrets.gitAccess, settings.api.git)
  if (api === undefined) {
    logger.warn(`path rules are inert: ${variable} is not set`, {
      variable,
      repositories: withPaths.map((r) => `${r.owner}/${r.repo}`),
      fix: `set ${variable} to a token that can read pull requests; until then these repositories post to their own channel`,
    })
    return repositoryChannel
  }
  return pathTargets({ listChangedFiles: api.changedFiles, logger })
}
