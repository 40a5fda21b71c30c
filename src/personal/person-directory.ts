import { timeZoneProblem } from '../config/digest-calendar.ts'
import type { DirectMessageSettings } from '../config/settings.ts'
import { DEFAULT_WORKING_HOURS, deliveryTime, parseWorkingHours } from '../config/working-hours.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { SlackDirectory } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { PeopleCache, PreferenceStore } from '../store/store.ts'

/** How long users.info's time zone is trusted, and a user group's members. */
const ZONE_TTL_MS = 7 * 24 * 3600_000
const GROUP_TTL_MS = 10 * 60_000

export interface PersonDirectory {
  /** When a message for `user` queued at `now` goes out: now within their working hours, else their next start. */
  deliveryTime(user: string, now: number): Promise<number>
  /** The members of a Slack user group (a team asked to review); none when Slack cannot say. */
  groupMembers(group: string): Promise<string[]>
  /** The person's working hours and zone as prherald applies them, for /prherald and the home tab. */
  hoursOf(user: string, now: number): Promise<{ hours: string; timeZone: string }>
}

/**
 * People as the personal side needs them, through the pacer: time zones cached in the store (a week), a
 * user group's members in memory (ten minutes). A failed look-up falls back (the default zone, nobody in
 * the group) and is logged: it never holds up a pull request's batch. One cut off by a stop (ShutdownInterrupt)
 * throws instead, so that what it was for is decided at the next start, not on a fallback.
 */
export function createPersonDirectory(deps: {
  settings: DirectMessageSettings
  store: PreferenceStore & PeopleCache
  slack: SlackDirectory
  pacer: SlackPacer
  logger: Logger
}): PersonDirectory {
  const groups = new Map<string, { members: string[]; until: number }>()
  const zoneOf = async (user: string, now: number): Promise<string> => {
    const cached = await deps.store.zoneOf(user, now)
    if (cached) return cached.timeZone ?? deps.settings.timeZone
    try {
      const found = (await deps.pacer.call('users.info', user, () => deps.slack.userInfo(user))).timeZone
      const timeZone = found && !timeZoneProblem(found) ? found : undefined
      await deps.store.saveZone(user, timeZone, now + ZONE_TTL_MS)
      return timeZone ?? deps.settings.timeZone
    } catch (error) {
      // A stop is not an answer: the default zone would be stored in the person's rows as their due time.
      if (error instanceof ShutdownInterrupt) throw error
      deps.logger.warn('slack time zone look-up failed; using notify.time_zone', {
        slack_user: user, ...errorFields(error), fix: 'add the users:read bot scope to the Slack app and reinstall it (docs/slack-app.md)',
      })
      return deps.settings.timeZone
    }
  }
  const hoursOf = async (user: string, now: number) => {
    const own = (await deps.store.preferenceOf(user)).workingHours ?? deps.settings.people[user]?.workingHours
    return { hours: own ?? deps.settings.workingHours, timeZone: await zoneOf(user, now) }
  }
  return {
    hoursOf,
    async deliveryTime(user, now) {
      const { hours, timeZone } = await hoursOf(user, now)
      return deliveryTime(now, timeZone, parseWorkingHours(hours) ?? parseWorkingHours(DEFAULT_WORKING_HOURS)!)
    },
    async groupMembers(group) {
      const cached = groups.get(group)
      if (cached && cached.until > Date.now()) return cached.members
      try {
        const members = await deps.pacer.call('usergroups.users.list', group, () => deps.slack.groupMembers(group))
        groups.set(group, { members, until: Date.now() + GROUP_TTL_MS })
        return members
      } catch (error) {
        if (error instanceof ShutdownInterrupt) throw error
        deps.logger.warn('slack user group members could not be read; its members get no direct message this time', {
          group, ...errorFields(error), fix: 'add the usergroups:read bot scope to the Slack app and reinstall it (docs/slack-app.md)',
        })
        return []
      }
    },
  }
}
