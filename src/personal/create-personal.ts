import { randomUUID } from 'node:crypto'
import type { Secrets, Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import type { ResolvePeople } from '../people/resolve-people.ts'
import { createSlackDirectory, type SlackDirectory } from '../slack/slack-directory.ts'
import type { SlackTokenObserver } from '../slack/slack-token-state.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { Store } from '../store/store.ts'
import { createPersonDirectory, type PersonDirectory } from './person-directory.ts'
import { createQueueDirectMessages, createResolveDirectMessages, type QueueDirectMessages } from './queue-direct-messages.ts'
import { createDirectMessageSender } from './send-direct-messages.ts'
import type { LeftIntent, Outbox } from '../slack/outbox.ts'

export interface Personal {
  slackDirectory: SlackDirectory
  people: PersonDirectory
  /** Absent when `notify.direct_messages: off`. */
  queue: QueueDirectMessages | undefined
  sendDue: () => Promise<void>
  /** Direct messages a sender left with an unknown outcome, for the start-up recovery. */
  leftDirectMessages: () => Promise<LeftIntent[]>
  now: () => number
}

/** The personal side's parts, built once by the worker factory from the worker's own client and pacer. */
export function createPersonal(options: {
  settings: Pick<Settings, 'directMessages' | 'api'>
  secrets: Pick<Secrets, 'slackBotToken'>
  store: Store
  logger: Logger
  pacer: SlackPacer
  people: ResolvePeople
  outbox: Outbox
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
  const queue = settings.directMessages.mode === 'off' ? undefined : createQueueDirectMessages({ settings: settings.directMessages, people: options.people, now })
  const resolve = createResolveDirectMessages({ settings: settings.directMessages, store, directory: people, logger })
  const sender = createDirectMessageSender({ store, directory: slackDirectory, pacer, outbox: options.outbox, logger, now, owner: randomUUID(), resolve })
  return { slackDirectory, people, queue, sendDue: sender.sendDue, leftDirectMessages: sender.leftIntents, now }
}
