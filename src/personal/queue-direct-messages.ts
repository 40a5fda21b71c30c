import type { StoredLifecycle } from '../../machines/decide.ts'
import { directMessageEvents, type DirectMessageEvent } from '../../machines/direct-message-events.ts'
import type { FoldStep } from '../../machines/fold-events.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { mappedId } from '../config/people-map.ts'
import type { DirectMessageSettings } from '../config/settings.ts'
import type { LogFields, Logger } from '../log/logger.ts'
import type { ResolvePeople } from '../people/resolve-people.ts'
import { renderDirectMessageLine } from '../slack/render-direct-message.ts'
import type { Store } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'

export interface QueueDirectMessagesDeps {
  settings: DirectMessageSettings
  store: Store
  people: ResolvePeople
  directory: PersonDirectory
  logger: Logger
  now: () => number
  /** Told when something was queued, so the sender looks at once (a message due now goes now). */
  queued: () => void
}

export interface BatchNews {
  stored: StoredLifecycle | undefined
  steps: readonly FoldStep[]
  next: StoredLifecycle
  facts: LogFields
}

/**
 * Queues the direct messages a folded batch gives, before the batch is committed: each row is the intent
 * (one per person and key, so a replay queues nothing and a sent one is never sent again). A person gets
 * one when direct messages are on for them (notify.direct_messages, their own choice), the pull request is
 * not muted by them, and they did not do it themselves. Slack look-ups that fail fall back (person-directory.ts).
 */
export function createQueueDirectMessages(deps: QueueDirectMessagesDeps) {
  const { settings } = deps
  const wants = async (user: string): Promise<boolean> => {
    if (settings.mode === 'off') return false
    const chosen = (await deps.store.preferenceOf(user)).directMessages ?? settings.people[user]?.directMessages
    return settings.mode === 'on' ? chosen !== 'off' : chosen === 'on'
  }

  return async function queueDirectMessages(news: BatchNews): Promise<void> {
    if (settings.mode === 'off') return
    const events = directMessageEvents(news.stored, news.steps)
    if (events.length === 0) return
    const people = await deps.people(news.next, news.facts)
    const { context } = news.next
    const prKey = pullRequestKey(context)
    const rows = []
    for (const event of events) {
      const actorUser = mappedId(people.users, event.actorKey) ?? mappedId(people.users, event.actor)
      for (const user of await recipients(event, people, deps.directory)) {
        if (user === actorUser || !(await wants(user)) || (await deps.store.isMuted(user, prKey))) continue
        const createdAt = deps.now()
        const dueAt = await deps.directory.deliveryTime(user, createdAt)
        rows.push({ recipient: user, dmKey: event.key, prKey, body: renderDirectMessageLine(event, context), dueAt, createdAt })
      }
    }
    // A store failure fails the batch, which stays pending: its replay queues the same rows, once.
    if ((await deps.store.queueDirectMessages(rows)) > 0) deps.queued()
  }
}

async function recipients(event: DirectMessageEvent, people: { users: Record<string, string>; teams?: Record<string, string> }, directory: PersonDirectory): Promise<string[]> {
  const to = event.to
  if (to.type === 'author') return [mappedId(people.users, to.key)].filter((u): u is string => u !== undefined)
  if (to.type === 'user') return [mappedId(people.users, to.accountId ?? to.login)].filter((u): u is string => u !== undefined)
  const group = people.teams ? mappedId(people.teams, to.slug) : undefined
  return group ? directory.groupMembers(group) : []
}

export type QueueDirectMessages = ReturnType<typeof createQueueDirectMessages>
