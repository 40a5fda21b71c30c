import { randomUUID } from 'node:crypto'
import type { Secrets, Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import type { ResolvePeople } from '../people/resolve-people.ts'
import type { ShutdownSleep } from '../slack/shutdown-sleep.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import { createSlackDirectory, type SlackDirectory } from '../slack/slack-directory.ts'
import type { SlackTokenObserver } from '../slack/slack-token-state.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { Store } from '../store/store.ts'
import { createPersonDirectory, type PersonDirectory } from './person-directory.ts'
import { createQueueDirectMessages, type QueueDirectMessages } from './queue-direct-messages.ts'
import { createDirectMessageSender, type SendDueDirectMessages } from './send-direct-messages.ts'

export interface Personal {
  slackDirectory: SlackDirectory
  people: PersonDirectory
  /** Absent when `notify.direct_messages: off`. */
  queue: QueueDirectMessages | undefined
  sendDue: SendDueDirectMessages
  now: () => number
}

/** The personal side's parts, built once by the worker factory from the worker's own client and pacer. */
export function createPersonal(options: {
  settings: Pick<Settings, 'directMessages' | 'api'>
  secrets: Pick<Secrets, 'slackBotToken'>
  store: Store
  logger: Logger
  slack: SlackClient
  pacer: SlackPacer
  sleep: ShutdownSleep
  people: ResolvePeople
  settleMs: number
  slackTimeoutMs?: number | undefined
  tokenObserver?: SlackTokenObserver | undefined
  now?: (() => number) | undefined
  onDirectMessagesQueued?: (() => void) | undefined
}): Personal {
  const { settings, store, logger, pacer } = options
  const now = options.now ?? Date.now
  const slackDirectory = createSlackDirectory({
    token: options.secrets.slackBotToken, apiUrl: settings.api.slack, logger, timeoutMs: options.slackTimeoutMs, tokenObserver: options.tokenObserver,
  })
  const people = createPersonDirectory({ settings: settings.directMessages, store, slack: slackDirectory, pacer, logger })
  const queue = settings.directMessages.mode === 'off' ? undefined : createQueueDirectMessages({
    settings: settings.directMessages, store, people: options.people, directory: people, logger, now,
    queued: () => options.onDirectMessagesQueued?.(),
  })
  const sendDue = createDirectMessageSender({
    store, slack: options.slack, directory: slackDirectory, pacer, sleep: options.sleep, logger, now, owner: randomUUID(), settleMs: options.settleMs,
  })
  return { slackDirectory, people, queue, sendDue, now }
}
