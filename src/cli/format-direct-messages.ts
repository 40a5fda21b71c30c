import type { DirectMessageSettings } from '../config/settings.ts'

/** `notify.direct_messages` and its companions as they take effect, for `prherald-config list`. */
export function formatDirectMessages(settings: DirectMessageSettings): string[] {
  const mode = {
    off: ' (nobody gets direct messages)',
    opt_in: ' (only people who turn them on: /prherald dm on, or direct_messages: on in users:)',
    on: ' (every mapped person, unless they turn them off)',
  }[settings.mode]
  const own = Object.entries(settings.people)
    .map(([user, p]) => [user, ...(p.directMessages ? [`dm ${p.directMessages}`] : []), ...(p.workingHours ? [`hours ${p.workingHours}`] : [])].join(' '))
  return [
    `notify.direct_messages: ${settings.mode}${mode}`,
    `notify.working_hours: ${settings.workingHours} (Monday to Friday, in each person's Slack time zone; held until the next start outside them)`,
    `notify.time_zone: ${settings.timeZone} (for people whose Slack profile has none)`,
    ...(own.length > 0 ? [`people's own settings: ${own.join('; ')}`] : []),
  ]
}
