import type { Settings } from '../config/settings.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import type { Logger } from '../log/logger.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { RetryPolicy } from '../slack/retry-transient.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import type { MessageStore, PeopleCache, PreferenceStore, SlackRequests } from '../store/store.ts'
import type { TalkBack } from '../talk-back/create-talk-back.ts'
import type { Personal } from './create-personal.ts'
import { createHomeActions, type HomeActions } from './home-actions.ts'
import { createPersonOf } from './person-of.ts'
import { createPublishHome, type PublishHome } from './publish-home.ts'
import { createCommandRunner, type RunCommand } from './run-command.ts'
import { createLinkCommands } from './link-commands.ts'
import { createStatsReport, workingClockOf } from '../insights/stats-report.ts'
import type { TurnaroundStore } from '../store/turnaround-store.ts'
import type { ReminderStore } from '../store/reminder-store.ts'
import type { AssignmentStore } from '../store/assignment-store.ts'

/**
 * What `/prherald`, the Events API and the home tab's buttons need, built from the worker's personal side,
 * and the store's record of Slack's requests already taken (the inbound pipeline's de-duplication).
 */
export function personalRoutes(deps: {
  settings: Pick<Settings, 'directMessages' | 'api' | 'lookupUsersByEmail' | 'insights' | 'digest' | 'reminders'>
  /** Every configured host: /prherald mine and the home tab gather a person's pull requests across them. */
  hosts: HostSet
  personal: Personal
  /** The message client: the home tab is published like any other change. */
  slack: Pick<SlackClient, 'publishHome'>
  store: MessageStore & PreferenceStore & PeopleCache & SlackRequests & TurnaroundStore & ReminderStore & AssignmentStore
  pacer: SlackPacer
  /** The batches' backoff: a home tab whose publish failed for a moment is tried again with it. */
  retry: RetryPolicy
  sleep: ShutdownSleep
  logger: Logger
  /** Talk-back (docs/talk-back.md): `/prherald link|unlink` and the home tab's link button; absent when it is off. */
  talkBack?: TalkBack | undefined
}): {
  run: RunCommand; publishHome: PublishHome; home: HomeActions; slackApiUrl: string; requests: SlackRequests
} {
  const { settings, personal, store } = deps
  const people = new Map([...deps.hosts.values()].map((own) => [own.id, { users: own.users, teams: own.teams }]))
  const personOf = createPersonOf({ people, store, lookupUsersByEmail: settings.lookupUsersByEmail })
  // Turnaround figures (docs/review-loop.md) only while insights are on: off, /prherald stats says so.
  const stats = settings.insights.enabled
    ? createStatsReport({ store, clock: workingClockOf(settings), hours: `${settings.directMessages.workingHours} ${settings.directMessages.timeZone}` })
    : undefined
  const shared = { store, settings: settings.directMessages, personOf, directory: personal.people, now: personal.now, stats }
  const publishHome = createPublishHome({ ...shared, slack: deps.slack, pacer: deps.pacer, retry: deps.retry, sleep: deps.sleep, logger: deps.logger, talkBack: deps.talkBack })
  return {
    run: createCommandRunner({
      ...shared, away: store, link: deps.talkBack && createLinkCommands({ talkBack: deps.talkBack, logger: deps.logger }),
      // `/prherald snooze` only while notify.reminders is on (docs/review-loop.md#reminders).
      snoozes: settings.reminders && store,
    }),
    publishHome,
    home: createHomeActions({ store, personOf, publishHome, logger: deps.logger }),
    slackApiUrl: settings.api.slack,
    requests: store,
  }
}
