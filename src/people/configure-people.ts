import type { Settings } from '../config/settings.ts'
import type { ConnectedHost, HostSet } from '../config/connect-hosts.ts'
import type { Logger } from '../log/logger.ts'
import { createEmailLookup, type EmailLookupDeps } from './email-lookup.ts'
import { configuredPeople, lookedUpPeople, type ResolvePeople } from './resolve-people.ts'

/**
 * The worker's people: each host's `users:` and `teams:`, plus the email look-up when
 * slack.lookup_users_by_email is on and the host's API gives emails. Without the host's token the look-up is
 * inert, said once at start-up, as path rules are. A pull request's people are its own host's.
 */
export function configurePeople(
  settings: Pick<Settings, 'lookupUsersByEmail'>,
  hosts: HostSet,
  deps: Omit<EmailLookupDeps, 'emailOf' | 'logger' | 'provider'> & { logger: Logger },
): ResolvePeople {
  const byHost = new Map<string, ResolvePeople>()
  for (const own of hosts.values()) {
    const people = { users: own.users, teams: own.teams }
    byHost.set(own.id, hostPeople(own, people))
  }
  const nobody = configuredPeople({ users: {}, teams: {} })
  return (lifecycle, facts) => (byHost.get(lifecycle.context.provider) ?? nobody)(lifecycle, facts)

  function hostPeople(own: ConnectedHost, people: { users: Record<string, string>; teams: Record<string, string> }): ResolvePeople {
    if (!settings.lookupUsersByEmail || !own.host.people.emailLookup) return configuredPeople(people)
    const emailOf = own.api?.emailOf
    if (emailOf === undefined) {
      const variable = own.host.variables.token
      deps.logger.warn(`slack.lookup_users_by_email is inert: ${variable} is not set`, {
        host: own.id,
        fix: `set ${variable} (any token can read public profiles), or map people in users:`,
      })
      return configuredPeople(people)
    }
    return lookedUpPeople({ people, lookup: createEmailLookup({ ...deps, provider: own.id, emailOf }) })
  }
}
