import type { DirectMessageSettings } from '../config/settings.ts'
import { parseWorkingHours } from '../config/working-hours.ts'
import type { MessageStore, PreferenceStore } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'
import { openPullRequestsOf } from './open-pull-requests-of.ts'
import { groupsOf, type PersonOf } from './person-of.ts'
import { channelPullRequests, minePullRequests, openPullRequests } from './pull-request-lists.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { LINK_HELP, type LinkCommands } from './link-commands.ts'
import type { StatsReport } from '../insights/stats-report.ts'
import { parseWorkingDuration } from '../config/working-duration.ts'
import type { ReminderStore } from '../store/reminder-store.ts'
import type { AssignmentStore } from '../store/assignment-store.ts'
import { AWAY_HELP, awayCommand } from './away-command.ts'

/** A slash command as Slack sends it, the fields read. */
export interface SlashCommand {
  userId: string
  channelId: string
  text: string
}

/** What to answer: at once, or an acknowledgement now and the answer once `later` resolves (Slack's 3 s). */
export type CommandAnswer = { now: string } | { ack: string; later: () => Promise<string> }

export const COMMAND_HELP = [
  '*/prherald* — your pull requests in Slack',
  '• `/prherald` or `/prherald mine`: what waits on you, and your pull requests that wait on someone',
  '• `/prherald channel`: this channel\'s open pull requests, the longest quiet first',
  '• `/prherald dm on` / `dm off`: direct messages about your pull requests and review requests',
  '• `/prherald hours 09:00-18:00`: your working hours (direct messages outside them wait for the next start)',
  '• `/prherald mute <pull request link>` / `unmute <link>`: no direct messages about that pull request',
  '• `/prherald stats [owner/repo|team] [--weeks N]`: time to first review, to approval and to merge',
  '• `/prherald snooze <pull request link> 2d`: no reminders about it for 2 of your working days (or `4h`: hours)',
  AWAY_HELP,
].join('\n')

const NOT_MAPPED = 'prherald does not know you yet: ask whoever runs it to add your git login and your Slack member id (Profile, ⋮ More, Copy member ID) under `users:` in config.yaml.'

export interface CommandDeps {
  store: MessageStore & PreferenceStore
  settings: DirectMessageSettings
  /** `users:`, else the email look-up's cache read backwards. */
  personOf: PersonOf
  directory: PersonDirectory
  now: () => number
  /** `/prherald link|unlink` (link-commands.ts); absent when talk-back is off. */
  link?: LinkCommands | undefined
  /** Turnaround figures (`/prherald stats`); absent when `insights.enabled` is off. */
  stats?: StatsReport | undefined
  /** `/prherald snooze`; absent when `notify.reminders` is off. */
  snoozes?: Pick<ReminderStore, 'snooze'> | undefined
  /** `/prherald away` (away-command.ts): the marks assign's skip_away reads. */
  away?: Pick<AssignmentStore, 'setAway'> | undefined
}

/**
 * `/prherald`: each person reads and changes only their own preferences (keyed by the Slack user who asked);
 * the lists are read from the stored messages, so they are answered after the acknowledgement.
 */
export function createCommandRunner(deps: CommandDeps) {
  const prKeyOfLink = async (link: string): Promise<string | undefined> => {
    const url = link.replace(/^<|>$/g, '').split('|')[0]!.replace(/[#?].*$/, '').replace(/\/+$/, '')
    const prs = openPullRequests(await deps.store.openMessages())
    const found = prs.find((p) => p.context.url.replace(/\/+$/, '') === url)
    return found ? pullRequestKey(found.context) : undefined
  }

  /** `/prherald snooze <link> <Nd|Nh>`: that pull request's reminders held for the person, from now. */
  const snooze = async (me: string, argument: string): Promise<string> => {
    if (!deps.snoozes) return 'Reminders are off here: whoever runs prherald can turn them on with `notify.reminders` in config.yaml.'
    const [link = '', span = '', ...extra] = argument.split(/\s+/).filter(Boolean)
    if (extra.length > 0 || !parseWorkingDuration(span)) return `Write \`/prherald snooze <pull request link> 2d\` (working days) or \`4h\` (working hours), e.g. \`/prherald snooze https://…/pull/42 2d\`.`
    const prKey = await prKeyOfLink(link)
    if (!prKey) return 'Give the link of an open pull request prherald shows, e.g. `/prherald snooze https://…/pull/42 2d`.'
    await deps.snoozes.snooze({ slackUser: me, prKey, snoozedAt: deps.now(), span })
    return `Snoozed: no reminders about it for ${span} of your working time.`
  }

  return async function runCommand(command: SlashCommand): Promise<CommandAnswer> {
    const [word = 'mine', ...rest] = command.text.trim().split(/\s+/).filter(Boolean)
    const argument = rest.join(' ')
    const me = command.userId
    if (word === 'help') return { now: deps.link ? [COMMAND_HELP, ...LINK_HELP].join('\n') : COMMAND_HELP }
    if (word === 'channel') {
      return { ack: 'Looking…', later: async () => channelPullRequests(openPullRequests(await deps.store.openMessages()), command.channelId, deps.now()).join('\n') }
    }
    if (word === 'stats') {
      const stats = deps.stats
      if (!stats) return { now: 'Turnaround figures are off here: whoever runs prherald can turn them on with `insights.enabled: true` in config.yaml.' }
      return { ack: 'Counting…', later: () => stats.stats(argument, deps.now()) }
    }
    const people = await deps.personOf(me)
    if (!people) return { now: NOT_MAPPED }
    switch (word) {
      case 'mine':
        return {
          ack: 'Looking…',
          later: async () => {
            const groups = await groupsOf(people, deps.directory, me)
            return minePullRequests(await openPullRequestsOf(deps.store, people, me, groups), me, people, groups, deps.now()).join('\n')
          },
        }
      case 'dm': {
        if (argument !== 'on' && argument !== 'off') return { now: 'Write `/prherald dm on` or `/prherald dm off`.' }
        await deps.store.savePreference(me, { directMessages: argument })
        if (deps.settings.mode === 'off') return { now: `Saved (dm ${argument}), but direct messages are off for everyone here (notify.direct_messages: off).` }
        return { now: argument === 'on' ? 'Direct messages are on: you will hear of your reviews and your pull requests.' : 'Direct messages are off for you.' }
      }
      case 'hours': {
        if (!parseWorkingHours(argument)) return { now: `"${argument}" is not a span of hours; write it as HH:MM-HH:MM, e.g. \`/prherald hours 09:00-18:00\`.` }
        await deps.store.savePreference(me, { workingHours: argument })
        const { timeZone } = await deps.directory.hoursOf(me, deps.now())
        return { now: `Your working hours are ${argument}, Monday to Friday, ${timeZone} (your Slack time zone). Direct messages outside them wait for the next start.` }
      }
      case 'mute':
      case 'unmute': {
        const prKey = argument ? await prKeyOfLink(argument) : undefined
        if (!prKey) return { now: `Give the link of an open pull request prherald shows, e.g. \`/prherald ${word} https://…/pull/42\`.` }
        await deps.store.setMuted(me, prKey, word === 'mute')
        return { now: word === 'mute' ? 'Muted: no more direct messages about it.' : 'Unmuted.' }
      }
      case 'snooze':
        return { now: await snooze(me, argument) }
      case 'away':
        if (deps.away) return { now: await awayCommand(deps.away, me, argument, deps.now()) }
        return { now: `Unknown command "${word}".\n${COMMAND_HELP}` }
      case 'link':
      case 'unlink':
        if (deps.link) return { now: await deps.link.run(word, me, argument) }
        return { now: `Unknown command "${word}".\n${COMMAND_HELP}` }
      default:
        return { now: `Unknown command "${word}".\n${COMMAND_HELP}` }
    }
  }
}

export type RunCommand = ReturnType<typeof createCommandRunner>
