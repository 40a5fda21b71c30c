import type { HostSet } from '../config/connect-hosts.ts'
import type { Logger } from '../log/logger.ts'
import { listRoutes } from './resolve-route.ts'
import { repositoryChannel, type ChooseTargets } from './message-targets.ts'
import { pathTargets } from './path-targets.ts'

/**
 * Per-path routing needs the host's token to list changed files. Without it that host's rules are inert, and
 * start-up says so once rather than on every pull request. Each pull request asks its own host.
 */
export function configureTargets(hosts: HostSet, logger: Logger): ChooseTargets {
  const byHost = new Map<string, ChooseTargets>()
  for (const own of hosts.values()) {
    const withPaths = listRoutes(own.mappings).filter((r) => r.paths.length > 0)
    if (withPaths.length === 0) continue
    const variable = own.host.variables.token
    if (own.api === undefined) {
      logger.warn(`path rules are inert: ${variable} is not set`, {
        host: own.id,
        variable,
        repositories: withPaths.map((r) => `${r.owner}/${r.repo}`),
        fix: `set ${variable} to a token that can read pull requests; until then these repositories post to their own channel`,
      })
      continue
    }
    byHost.set(own.id, pathTargets({ listChangedFiles: own.api.changedFiles, logger }))
  }
  if (byHost.size === 0) return repositoryChannel
  return (event, route) => (byHost.get(event.provider) ?? repositoryChannel)(event, route)
}
