import type { Secrets, Settings } from '../config/settings.ts'
import { hostOf } from '../hosts/registry.ts'
import type { Logger } from '../log/logger.ts'
import { createEmailLookup, type EmailLookupDeps } from './email-lookup.ts'
import { configuredPeople, lookedUpPeople, type ResolvePeople } from './resolve-people.ts'

/**
 * The worker's people: `users:` and `teams:`, plus the email look-up when slack.lookup_users_by_email is on.
 * Without the host's token the look-up is inert, said once at start-up, as path rules are.
 */
export function configurePeople(
  settings: Pick<Settings, 'gitProvider' | 'users' | 'teams' | 'lookupUsersByEmail' | 'api'>,
  secrets: Pick<Secrets, 'gitAccess'>,
  deps: Omit<EmailLookupDeps, 'emailOf' | 'logger'> & { logger: Logger },
): ResolvePeople {
  const people = { users: settings.users, teams: settings.teams }
  const host = hostOf(settings.gitProvider)
  if (!settings.lookupUsersByEmail || !host.people.emailLookup) return configuredPeople(people)
  const emailOf = host.connect(secrets.gitAccess, settings.api.git)?.emailOf
  if (emailOf === undefined) {
    const variable = host.variables.token
    deps.logger.warn(`slack.lookup_users_by_email is inert: ${variable} is not set`, {
      fix: `set ${variable} (any token can read public profiles), or map people in users:`,
    })
    return configuredPeople(people)
  }
  return lookedUpPeople({ people, lookup: createEmailLookup({ ...deps, emailOf }) })
}
