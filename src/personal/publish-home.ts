import { pullRequestKey } from '../../machines/pull-request-event.ts'
import type { DirectMessageSettings } from '../config/settings.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { HOME_ACTIONS, homeMetadata } from '../slack/decode-home-action.ts'
import { pullRequestLink } from '../slack/render-direct-message.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { MessageStore, PreferenceStore } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'
import { groupsOf, type PersonOf } from './person-of.ts'
import { minePullRequests, openPullRequests } from './pull-request-lists.ts'

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 2900) } })
const button = (text: string, actionId: string, value: string) => ({ type: 'button', text: { type: 'plain_text', text }, action_id: actionId, value })
/** A home tab holds at most 100 blocks (Slack's view limit): the rest of a long mute list is counted, not shown. */
const MUTES_SHOWN = 40

/**
 * The person's App Home tab (`app_home_opened`, and after each click in it): what waits on them, their pull
 * requests and what each waits on, and their preferences as buttons (direct messages on or off, each mute with
 * Unmute) whose clicks come back through the interactions route (home-actions.ts). The view's private_metadata
 * names its owner, so a click is acted on only for the person it belongs to. Published through the pacer.
 */
export function createPublishHome(deps: {
  store: MessageStore & PreferenceStore
  settings: DirectMessageSettings
  personOf: PersonOf
  directory: PersonDirectory
  slack: Pick<SlackClient, 'publishHome'>
  pacer: SlackPacer
  logger: Logger
  now: () => number
}) {
  const preferences = async (user: string, prs: ReturnType<typeof openPullRequests>): Promise<unknown[]> => {
    const own = await deps.store.preferenceOf(user)
    const on = (own.directMessages ?? deps.settings.people[user]?.directMessages ?? (deps.settings.mode === 'on' ? 'on' : 'off')) === 'on'
    const { hours, timeZone } = await deps.directory.hoursOf(user, deps.now())
    const blocks: unknown[] = [{ type: 'divider' }]
    if (deps.settings.mode === 'off') blocks.push(section('*Your direct messages:* off for everyone here (notify.direct_messages: off)'))
    else {
      blocks.push({
        ...section(`*Your direct messages:* ${on ? 'on' : 'off'}`),
        accessory: on ? button('Turn off', HOME_ACTIONS.directMessagesOff, 'off') : button('Turn on', HOME_ACTIONS.directMessagesOn, 'on'),
      })
    }
    blocks.push(section(`*Your working hours:* ${hours}, Monday to Friday (${timeZone})\nChange them with \`/prherald hours 09:00-18:00\`; mute a pull request with \`/prherald mute <link>\`.`))
    const mutes = await deps.store.mutesOf(user)
    if (mutes.length === 0) return blocks
    const links = new Map(prs.map((p) => [pullRequestKey(p.context), pullRequestLink(p.context)]))
    blocks.push(section(`*Muted* (no direct messages about these): ${mutes.length}`))
    for (const key of mutes.slice(0, MUTES_SHOWN)) blocks.push({ ...section(links.get(key) ?? key.replace(/[&<>]/g, '')), accessory: button('Unmute', HOME_ACTIONS.unmute, key) })
    if (mutes.length > MUTES_SHOWN) blocks.push(section(`…and ${mutes.length - MUTES_SHOWN} more (\`/prherald unmute <link>\`).`))
    return blocks
  }

  return async function publishHome(user: string): Promise<void> {
    try {
      const people = await deps.personOf(user)
      const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: 'prherald' } }]
      if (!people) {
        blocks.push(section('prherald does not know you yet: ask whoever runs it to add your git login and your Slack member id under `users:` in config.yaml.'))
      } else {
        const prs = openPullRequests(await deps.store.openMessages())
        blocks.push(section(minePullRequests(prs, user, people, await groupsOf(people, deps.directory, user), deps.now()).join('\n')))
        blocks.push(...await preferences(user, prs))
      }
      const view = { type: 'home' as const, private_metadata: homeMetadata(user), blocks }
      await deps.pacer.call('views.publish', user, () => deps.slack.publishHome(user, view))
    } catch (error) {
      deps.logger.warn('slack home tab not published', { slack_user: user, ...errorFields(error) })
    }
  }
}

export type PublishHome = ReturnType<typeof createPublishHome>
