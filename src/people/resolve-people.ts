import type { StoredLifecycle } from '../../machines/decide.ts'
import type { LogFields } from '../log/logger.ts'
import type { People } from './person-names.ts'

/** Who is a Slack user, for the lifecycle about to be rendered. Never throws: a failed look-up is plain text. */
export type ResolvePeople = (lifecycle: StoredLifecycle, facts: LogFields) => Promise<People>

/** `users:` and `teams:` as configured; no look-ups. */
export function configuredPeople(people: People): ResolvePeople {
  return async () => people
}
