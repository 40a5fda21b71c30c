import type { DirectMessageSettings } from '../config/settings.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { People } from '../slack/person-names.ts'
import type { SlackDirectory } from '../slack/slack-directory.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { Store } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'
import { minePullRequests, openPullRequests } from './pull-request-lists.ts'

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 2900) } })

/**
 * The person's App Home tab (`app_home_opened`): what waits on them, their pull requests and what each waits
 * on, and their direct-message preferences with the commands that change them. Published through the pacer.
 */
export function createPublishHome(deps: {
  store: Store
  settings: DirectMessageSettings
  people: People
  directory: PersonDirectory
  slack: SlackDirectory
  pacer: SlackPacer
  logger: Logger
  now: () => number
}) {
  return async function publishHome(user: string): Promise<void> {
    try {
      const known = Object.values(deps.people.users).includes(user)
      const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: 'prherald' } }]
      if (!known) {
        blocks.push(section('prherald does not know you yet: ask whoever runs it to add your git login and your Slack member id under `users:` in config.yaml.'))
      } else {
        const groups = new Set<string>()
        for (const group of new Set(Object.values(deps.people.teams))) if ((await deps.directory.groupMembers(group)).includes(user)) groups.add(group)
        const lines = minePullRequests(openPullRequests(await deps.store.openMessages()), user, deps.people, groups, deps.now())
        blocks.push(section(lines.join('\n')))
        const own = await deps.store.preferenceOf(user)
        const dm = deps.settings.mode === 'off' ? 'off for everyone here'
          : (own.directMessages ?? deps.settings.people[user]?.directMessages ?? (deps.settings.mode === 'on' ? 'on' : 'off'))
        const { hours, timeZone } = await deps.directory.hoursOf(user, deps.now())
        blocks.push({ type: 'divider' }, section(`*Your direct messages:* ${dm}\n*Your working hours:* ${hours}, Monday to Friday (${timeZone})\nChange them with \`/prherald dm on\`, \`/prherald dm off\`, \`/prherald hours 09:00-18:00\`.`))
      }
      await deps.pacer.call('views.publish', user, () => deps.slack.publishHome(user, { type: 'home', blocks }))
    } catch (error) {
      deps.logger.warn('slack home tab not published', { slack_user: user, ...errorFields(error) })
    }
  }
}

export type PublishHome = ReturnType<typeof createPublishHome>
