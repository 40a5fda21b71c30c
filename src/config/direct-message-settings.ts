import type { ConfigDocument, HostBlockDocument } from './schema.ts'
import { DEFAULTS, type DirectMessageSettings } from './settings.ts'

/** `users:` as the plain map of bare Slack ids every other part reads, whichever form each value has. */
export function slackIds(users: HostBlockDocument['users']): Record<string, string> {
  return Object.fromEntries(Object.entries(users ?? {}).map(([key, value]) => [key, typeof value === 'string' ? value : value.slack]))
}

/** `notify.direct_messages` and friends, after defaults, with each person's own settings keyed by Slack user id. */
export function directMessageSettings(doc: Pick<ConfigDocument, 'notify'>, blocks: readonly Pick<HostBlockDocument, 'users'>[]): DirectMessageSettings {
  const people: DirectMessageSettings['people'] = {}
  // A person mapped on several hosts has one set of settings (host-blocks.ts refuses blocks that differ).
  for (const value of blocks.flatMap((block) => Object.values(block.users ?? {}))) {
    if (typeof value === 'string') continue
    people[value.slack] = { directMessages: value.direct_messages, workingHours: value.working_hours }
  }
  return {
    mode: doc.notify?.direct_messages ?? DEFAULTS.directMessages,
    modeChosen: doc.notify?.direct_messages !== undefined,
    workingHours: doc.notify?.working_hours ?? DEFAULTS.workingHours,
    timeZone: doc.notify?.time_zone ?? DEFAULTS.timeZone,
    people,
  }
}
