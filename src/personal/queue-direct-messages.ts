import type { StoredLifecycle } from '../../machines/decide.ts'
import { directMessageEvents } from '../../machines/direct-message-events.ts'
import type { FoldStep } from '../../machines/fold-events.ts'
import { pullRequestKey } from '../../machines/pull-request-event.ts'
import { mappedId } from '../config/people-map.ts'
import type { DirectMessageSettings } from '../config/settings.ts'
import { errorFields, type LogFields, type Logger } from '../log/logger.ts'
import type { ResolvePeople } from '../people/resolve-people.ts'
import { renderDirectMessageLine } from '../slack/render-direct-message.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { DirectMessageIntent, DirectMessageStore, PreferenceStore } from '../store/store.ts'
import type { PersonDirectory } from './person-directory.ts'

export interface BatchNews {
  steps: readonly FoldStep[]
  next: StoredLifecycle
  facts: LogFields
}

/**
 * The direct messages a folded batch gives, as intents the batch commits with its rows: one per event and
 * recipient, a mapped Slack user or a team's Slack user group. No Slack look-up happens here (who is in a
 * group, when the person's day starts: the sender resolves them, resolveDirectMessages below), so a slow
 * people look-up never delays the channel message; a replayed batch commits the same rows, kept once.
 */
export function createQueueDirectMessages(deps: { settings: DirectMessageSettings; people: ResolvePeople; now: () => number }) {
  return async function directMessageIntents(news: BatchNews): Promise<DirectMessageIntent[]> {
    if (deps.settings.mode === 'off') return []
    const events = directMessageEvents(news.steps)
    if (events.length === 0) return []
    const people = await deps.people(news.next, news.facts)
    const { context } = news.next
    const prKey = pullRequestKey(context)
    return events.flatMap((event) => {
      const actorUser = mappedId(people.users, event.actorKey) ?? mappedId(people.users, event.actor)
      const to = event.to
      const user = to.type === 'author' ? mappedId(people.users, to.key) : to.type === 'user' ? mappedId(people.users, to.accountId ?? to.login) : undefined
      const group = to.type === 'team' && people.teams ? mappedId(people.teams, to.slug) : undefined
      const target = user ? { kind: 'user' as const, id: user } : group ? { kind: 'group' as const, id: group } : undefined
      return target ? [{ target, dmKey: event.key, prKey, body: renderDirectMessageLine(event, context), actorUser, createdAt: deps.now() }] : []
    })
  }
}

export type QueueDirectMessages = ReturnType<typeof createQueueDirectMessages>

/**
 * Whether `user` gets direct messages: `notify.direct_messages` (off: nobody), then their own choice (/prherald dm,
 * the home tab), then what `users:` says for them. The sender and the reminders (src/reminders/) ask it.
 */
export async function wantsDirectMessages(settings: DirectMessageSettings, store: PreferenceStore, user: string): Promise<boolean> {
  if (settings.mode === 'off') return false
  const chosen = (await store.preferenceOf(user)).directMessages ?? settings.people[user]?.directMessages
  return settings.mode === 'on' ? chosen !== 'off' : chosen === 'on'
}

/**
 * The sender's first step: each committed intent becomes the rows of the people it reaches (a group's
 * members), for those who want direct messages (notify.direct_messages, their own choice), did not mute the
 * pull request and did not do it themselves, each due now or at the start of their next working day. Slack
 * look-ups that fail fall back (person-directory.ts). An intent that fails stays for the next round; one cut
 * off by a stop stays for the next start, resolved then on that start's clock.
 */
export function createResolveDirectMessages(deps: { settings: DirectMessageSettings; store: DirectMessageStore & PreferenceStore; directory: PersonDirectory; logger: Logger }) {
  const wants = (user: string) => wantsDirectMessages(deps.settings, deps.store, user)
  return async function resolveDirectMessages(now: number): Promise<void> {
    for (const intent of await deps.store.directMessageIntents()) {
      try {
        const users = intent.target.kind === 'group' ? await deps.directory.groupMembers(intent.target.id) : [intent.target.id]
        const rows = []
        for (const user of users) {
          if (user === intent.actorUser || !(await wants(user)) || (await deps.store.isMuted(user, intent.prKey))) continue
          rows.push({ recipient: user, dmKey: intent.dmKey, prKey: intent.prKey, body: intent.body, dueAt: await deps.directory.deliveryTime(user, now), createdAt: intent.createdAt })
        }
        await deps.store.resolveDirectMessageIntent(intent, rows)
      } catch (error) {
        // Stopping: the round ends here, and this intent and the rest stay for the next start.
        if (error instanceof ShutdownInterrupt) throw error
        deps.logger.warn('direct message recipients not resolved; tried again at the next round', { dm_key: intent.dmKey, ...errorFields(error) })
      }
    }
  }
}
