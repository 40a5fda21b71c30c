import type { Settings } from '../config/settings.ts'
import type { CheckResult } from './check-result.ts'
import { directMessagesReachSomeone, type PersonalSettings } from './personal-scopes.ts'

/**
 * `notify.reminders` as it will work, said by prherald-doctor and at start-up alike: nothing while it is off; a
 * WARN when it is on and no direct message can reach anyone (a reminder is a direct message, and nobody who
 * gets none is reminded or named in a thread: docs/review-loop.md#reminders); OK with its spans otherwise.
 */
export function remindersResult(settings: PersonalSettings & Pick<Settings, 'reminders'>, interactiveRoutes: boolean): CheckResult[] {
  const { reminders } = settings
  if (!reminders) return []
  const target = 'notify.reminders'
  if (!directMessagesReachSomeone(settings, interactiveRoutes)) {
    return [{
      name: 'reminders', target, status: 'WARN',
      reason: 'on, but no direct message reaches anyone, so nobody is reminded',
      fix: 'turn direct messages on for people (notify.direct_messages: on, or opt_in with SLACK_SIGNING_SECRET or direct_messages: on in users:; docs/notifications.md), or remove notify.reminders',
    }]
  }
  return [{ name: 'reminders', target, status: 'OK', reason: `after ${reminders.after}, every ${reminders.every}, escalate_after ${reminders.escalateAfter} of each person's working time` }]
}
