import type { HostSettings, Settings } from '../config/settings.ts'
import type { CheckResult } from './check-result.ts'
import { listRoutes } from '../routing/resolve-route.ts'

/** A bot scope one personal feature needs: without it prherald runs on, without that feature. */
export interface FeatureScope {
  scope: string
  /** What the scope enables, as the WARN names it. */
  feature: string
}

/** The personal side's scopes and what each enables (docs/slack-app.md#scopes). */
export const PERSONAL_SCOPES = {
  commands: 'the /prherald command',
  'im:write': 'direct messages',
  'im:history': 'looking up a direct message of unknown outcome before a retry (without it one may arrive twice)',
  'users:read': 'quiet hours in each person\'s Slack time zone (without it everyone gets notify.time_zone)',
  'usergroups:read': 'team review requests reaching the team\'s members',
  'users.profile:read': 'assign: passing over people whose Slack status says out of office',
} as const satisfies Record<string, string>

export type PersonalSettings = Pick<Settings, 'directMessages'> & { hosts: readonly (Pick<HostSettings, 'teams'> & Partial<Pick<HostSettings, 'mappings'>>)[] }

/**
 * Whether anyone can get a direct message: never with `off`; with `on` anyone mapped; with `opt_in` only
 * someone with `direct_messages: on` in `users:`, or through the interactive routes (SLACK_SIGNING_SECRET:
 * /prherald dm on, the home tab), which the service serves only with that secret (src/service.ts).
 */
export function directMessagesReachSomeone(settings: PersonalSettings, interactiveRoutes: boolean): boolean {
  const { mode, people } = settings.directMessages
  if (mode === 'off') return false
  return mode === 'on' || interactiveRoutes || Object.values(people).some((p) => p.directMessages === 'on')
}

/** The personal scopes the configured features need; only those of a feature that can be used. */
export function personalScopes(settings: PersonalSettings, interactiveRoutes: boolean): FeatureScope[] {
  const direct = directMessagesReachSomeone(settings, interactiveRoutes)
  const needed: Array<keyof typeof PERSONAL_SCOPES> = [
    ...(interactiveRoutes ? ['commands' as const] : []),
    ...(direct ? ['im:write' as const, 'im:history' as const, 'users:read' as const] : []),
    ...(settings.hosts.some((h) => Object.keys(h.teams).length > 0) && (direct || interactiveRoutes) ? ['usergroups:read' as const] : []),
    // assign's skip_away reads presence (users:read) and the status (users.profile:read).
    ...(settings.hosts.some((h) => listRoutes(h.mappings ?? {}).some((r) => r.assign?.skipAway)) ? ['users.profile:read' as const, ...(direct ? [] : ['users:read' as const])] : []),
  ]
  return needed.map((scope) => ({ scope, feature: PERSONAL_SCOPES[scope] }))
}

/** The WARN for each personal scope the token lacks, naming the feature it disables. */
export function missingScopeResults(personal: readonly FeatureScope[], granted: ReadonlySet<string>): CheckResult[] {
  return personal.filter(({ scope }) => !granted.has(scope)).map(({ scope, feature }) => ({
    name: 'slack-scope', target: scope, status: 'WARN', reason: `the token lacks ${scope}, which disables ${feature}`,
    fix: `add the bot scope ${scope} under OAuth & Permissions in the Slack app and reinstall the app (a new scope takes effect only once reinstalled); set SLACK_BOT_TOKEN again if Slack gives a new token (docs/slack-app.md#scopes)`,
  }))
}

/**
 * notify.direct_messages as it will work: a WARN when the file sets `opt_in` and nobody can opt in (nobody
 * has `direct_messages: on` in `users:` and, without SLACK_SIGNING_SECRET, there is no /prherald nor home
 * tab). The same by default is only said, as a SKIP: an operator who never asked for direct messages is not
 * nagged, and is not told OK about something that does nothing.
 */
export function directMessagesResult(settings: PersonalSettings, interactiveRoutes: boolean): CheckResult {
  const target = 'notify.direct_messages'
  const { mode } = settings.directMessages
  // Off is said as SKIP, not OK: nothing is checked, and nothing works.
  if (mode === 'off') return { name: 'direct messages', target, status: 'SKIP', reason: 'off: nobody gets one' }
  if (!directMessagesReachSomeone(settings, interactiveRoutes)) {
    if (settings.directMessages.modeChosen !== true) return { name: 'direct messages', target, status: 'SKIP', reason: 'opt_in (the default, not set in the file): nobody can opt in without SLACK_SIGNING_SECRET or direct_messages: on in users:, so nobody gets one' }
    return {
      name: 'direct messages', target, status: 'WARN',
      reason: 'opt_in, but nobody can opt in: no person in users: has direct_messages: on, and SLACK_SIGNING_SECRET is unset (no /prherald, no home tab)',
      fix: 'set SLACK_SIGNING_SECRET and the Slack app\'s request URLs (docs/slack-app.md), or give people direct_messages: on in users: (docs/notifications.md), or set notify.direct_messages: off',
    }
  }
  const how = interactiveRoutes ? 'people change it with /prherald dm on|off or the home tab' : 'SLACK_SIGNING_SECRET unset: only users: can turn it on or off'
  return { name: 'direct messages', target, status: 'OK', reason: `${mode}; ${how}` }
}
