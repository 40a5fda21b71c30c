import { randomUUID } from 'node:crypto'
import type { Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import type { ResolvePeople } from '../people/resolve-people.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { DirectMessageStore, IntentStore, PeopleCache, PreferenceStore } from '../store/store.ts'
import { createPersonDirectory, type PersonDirectory } from './person-directory.ts'
import { createQueueDirectMessages, createResolveDirectMessages, type QueueDirectMessages } from './queue-direct-messages.ts'
import { createDirectMessageSender } from './send-direct-messages.ts'
import type { LeftIntent, Outbox } from '../slack/outbox.ts'

export interface Personal {
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
  settings: Pick<Settings, 'directMessages'>
  store: DirectMessageStore & IntentStore & PreferenceStore & PeopleCache
  /** The worker's message client: the personal side's reads and its direct messages go through it. */
  slack: SlackClient
  logger: Logger
  pacer: SlackPacer
  people: ResolvePeople
  outbox: Outbox
  now?: (() => number) | undefined
  onDirectMessagesQueued?: (() => void) | undefined
}): Personal {
  const { settings, store, logger, pacer } = options
  const now = options.now ?? Date.now
  const people = createPersonDirectory({ settings: settings.directMessages, store, slack: options.slack, pacer, logger })
  const queue = settings.directMessages.mode === 'off' ? undefined : createQueueDirectMessages({ settings: settings.directMessages, people: options.people, now })
  const resolve = createResolveDirectMessages({ settings: settings.directMessages, store, directory: people, logger })
  const sender = createDirectMessageSender({ store, directory: options.slack, pacer, outbox: options.outbox, logger, now, owner: randomUUID(), resolve })
  return { people, queue, sendDue: sender.sendDue, leftDirectMessages: sender.leftIntents, now }
}
