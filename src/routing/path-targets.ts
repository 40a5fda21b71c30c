import { isPrheraldError } from '../errors.ts'
import { MAX_CHANGED_FILES, type ListChangedFiles } from '../hosts/list-changed-files.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { routeByPaths } from './route-by-paths.ts'
import { repositoryChannel, type ChooseTargets } from './message-targets.ts'

export interface PathTargetsDeps {
  listChangedFiles: ListChangedFiles
  logger: Logger
}

/**
 * Chooses channels from the changed files, for repositories with `paths` rules. It runs once, when the
 * pull request is first announced; later events update the messages it chose. A git host that cannot
 * answer must not keep the pull request unannounced, so any failure falls back to the repository channel.
 */
export function pathTargets(deps: PathTargetsDeps): ChooseTargets {
  return async (event, route) => {
    if (route.paths.length === 0) return repositoryChannel(event, route)
    const facts = { repository: `${event.owner}/${event.repo}`, pr: event.number, delivery_id: event.deliveryId }
    let files
    try {
      files = await deps.listChangedFiles({ owner: event.owner, repo: event.repo, number: event.number })
    } catch (error) {
      deps.logger.warn('path routing fell back to the repository channel', {
        ...facts, ...errorFields(error), fix: isPrheraldError(error) ? error.fix : undefined,
      })
      return repositoryChannel(event, route)
    }
    if (files.length >= MAX_CHANGED_FILES) {
      deps.logger.info('path routing saw only the first changed files', { ...facts, limit: MAX_CHANGED_FILES })
    }
    const targets = routeByPaths(files, route)
    deps.logger.debug('path routing chose channels', { ...facts, files: files.length, channels: targets.map((t) => t.channel) })
    return targets
  }
}
