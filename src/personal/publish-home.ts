import { pullRequestKey } from '../../machines/pull-request-event.ts'
import type { DirectMessageSettings } from '../config/settings.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { HOME_ACTIONS, homeMetadata } from '../slack/decode-home-action.ts'
import { pullRequestLink } from '../slack/render-direct-message.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import { retryTransient, type RetryPolicy } from '../slack/retry-transient.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import type { MessageStore, PreferenceStore } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'
import { groupsOf, type PersonOf } from './person-of.ts'
import { minePullRequests, type OpenPullRequest } from './pull-request-lists.ts'
import { openPullRequestsOf } from './open-pull-requests-of.ts'
import { homeLinkBlocks } from './home-links.ts'
import type { TalkBack } from '../talk-back/create-talk-back.ts'
import type { StatsReport } from '../insights/stats-report.ts'

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 2900) } })
const button = (text: string, actionId: string, value: string) => ({ type: 'button', text: { type: 'plain_text', text }, action_id: actionId, value })
/** A home tab holds at most 100 blocks (Slack's view limit): the rest of a long mute list is counted, not shown. */
const MUTES_SHOWN = 40
/** Tries of one publish: a transient failure after the ack is tried again, and after these left to the next opening. */
const PUBLISH_TRIES = 3

/**
 * The person's App Home tab (`app_home_opened`, and after each click in it): what waits on them, their pull
 * requests and what each waits on, and their preferences as buttons (direct messages on or off, each mute with
 * Unmute) whose clicks come back through the interactions route (home-actions.ts). The view's private_metadata
 * names its owner, so a click is acted on only for the person it belongs to. Published through the pacer, and
 * after a transient failure built and published again (PUBLISH_TRIES, with the batches' backoff): the ack is
 * long sent, so nothing else would bring the tab back before the next opening.
 */
export function createPublishHome(deps: {
  store: MessageStore & PreferenceStore
  settings: DirectMessageSettings
  personOf: PersonOf
  directory: PersonDirectory
  slack: Pick<SlackClient, 'publishHome'>
  pacer: SlackPacer
  retry: RetryPolicy
  sleep: ShutdownSleep
  logger: Logger
  now: () => number
  /** Talk-back: the linked accounts and the link buttons (home-links.ts); absent when it is off. */
  talkBack?: TalkBack | undefined
  /** Turnaround figures: "your team this week" for the teams of `teams:` the person is in; absent when insights are off. */
  stats?: StatsReport | undefined
}) {
  const preferences = async (user: string, prs: readonly OpenPullRequest[]): Promise<unknown[]> => {
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

  // Built afresh on each try, so that a retry never publishes an older view over one a later click published.
  const publishOnce = async (user: string): Promise<void> => {
    const people = await deps.personOf(user)
    const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: 'prherald' } }]
    if (!people) {
      blocks.push(section('prherald does not know you yet: ask whoever runs it to add your git login and your Slack member id under `users:` in config.yaml.'))
    } else {
      const groups = await groupsOf(people, deps.directory, user)
      // This person's open pull requests only; a muted one they no longer hold is listed by its key.
      const prs = await openPullRequestsOf(deps.store, people, user, groups)
      blocks.push(section(minePullRequests(prs, user, people, groups, deps.now()).join('\n')))
      const teams = [...new Set([...people.values()].flatMap((own) => Object.entries(own.teams).filter(([, group]) => groups.has(group)).map(([slug]) => slug)))]
      const week = deps.stats ? await deps.stats.teamWeek(teams, deps.now()) : undefined
      if (week) blocks.push({ type: 'divider' }, section(week))
      blocks.push(...await preferences(user, prs))
      if (deps.talkBack) blocks.push(...await homeLinkBlocks(deps.talkBack, user))
    }
    const view = { type: 'home' as const, private_metadata: homeMetadata(user), blocks }
    await deps.pacer.call('views.publish', user, () => deps.slack.publishHome(user, view))
  }

  return async function publishHome(user: string): Promise<void> {
    // Before anything is awaited: a request that starts a publish has logged it by the time it is answered.
    deps.logger.debug('home tab publish started', { slack_user: user })
    try {
      await retryTransient(() => publishOnce(user), {
        policy: deps.retry, sleep: deps.sleep, attempts: PUBLISH_TRIES,
        onRetry: (attempt, delayMs, error) => deps.logger.warn('slack call failed, retrying', { slack_user: user, call: 'views.publish', attempt, delay_ms: delayMs, ...errorFields(error) }),
      })
    } catch (error) {
      deps.logger.warn('slack home tab not published', { slack_user: user, ...errorFields(error) })
    }
  }
}

export type PublishHome = ReturnType<typeof createPublishHome>
