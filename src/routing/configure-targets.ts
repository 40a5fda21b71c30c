import { SECRET_VARIABLES } from '../config/load-config.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import { createBitbucketClient } from '../git-host/bitbucket-client.ts'
import { createGithubClient } from '../git-host/github-client.ts'
import { bitbucketChangedFiles, githubChangedFiles } from '../git-host/list-changed-files.ts'
import type { Logger } from '../log/logger.ts'
import { listRoutes } from './resolve-route.ts'
import { repositoryChannel, type ChooseTargets } from './message-targets.ts'
import { pathTargets } from './path-targets.ts'

/**
 * Per-path routing needs the provider's token to list changed files. Without it the rules are inert, and
 * start-up says so once rather than on every pull request.
 */
export function configureTargets(
  settings: Pick<Settings, 'mappings' | 'gitProvider' | 'api'>, secrets: Pick<Secrets, 'gitToken' | 'bitbucketAuthEmail'>, logger: Logger,
): ChooseTargets {
  const withPaths = listRoutes(settings.mappings).filter((r) => r.paths.length > 0)
  if (withPaths.length === 0) return repositoryChannel
  const variable = SECRET_VARIABLES[settings.gitProvider].token
  if (secrets.gitToken === undefined) {
    logger.warn(`path rules are inert: ${variable} is not set`, {
      variable,
      repositories: withPaths.map((r) => `${r.owner}/${r.repo}`),
      fix: `set ${variable} to a token that can read pull requests; until then these repositories post to their own channel`,
    })
    return repositoryChannel
  }
  const listChangedFiles = settings.gitProvider === 'github'
    ? githubChangedFiles(createGithubClient({ baseUrl: settings.api.github, token: secrets.gitToken }))
    : bitbucketChangedFiles(createBitbucketClient({ baseUrl: settings.api.bitbucket, token: secrets.gitToken, authEmail: secrets.bitbucketAuthEmail }))
  return pathTargets({ listChangedFiles, logger })
}
