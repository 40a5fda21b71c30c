import type { Logger } from '../log/logger.ts'
import type { HomeClick } from '../slack/decode-home-action.ts'
import type { PreferenceStore } from '../store/store.ts'
import type { PersonOf } from './person-of.ts'
import type { PublishHome } from './publish-home.ts'

/**
 * A preference button clicked in the person's own home tab (the route checked workspace, app and owner):
 * stored with the calls `/prherald dm on|off` and `unmute` make, before Slack gets its 200, then the tab is
 * published again to show it. Someone prherald does not know changes nothing, as with `/prherald`.
 */
export function createHomeActions(deps: { store: PreferenceStore; personOf: PersonOf; publishHome: PublishHome; logger: Logger }) {
  return async function applyHomeClick(click: HomeClick): Promise<void> {
    if (!(await deps.personOf(click.user))) {
      deps.logger.info('ignored slack interaction', { reason: 'not_mapped', slack_user: click.user })
      return
    }
    const { change } = click
    if (change.kind === 'direct_messages') await deps.store.savePreference(click.user, { directMessages: change.value })
    else await deps.store.setMuted(click.user, change.prKey, false)
    deps.logger.info('home tab preference changed', { slack_user: click.user, change: change.kind === 'unmute' ? 'unmute' : `dm_${change.value}` })
    void deps.publishHome(click.user)
  }
}

export type HomeActions = ReturnType<typeof createHomeActions>
