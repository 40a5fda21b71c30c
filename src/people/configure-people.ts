import type { Secrets, Settings } from '../config/settings.ts'
import { createGithubClient } from '../hosts/github/client.ts'
import type { Logger } from '../log/logger.ts'
import { createEmailLookup, type EmailLookupDeps } from './email-lookup.ts'
import { configuredPeople, lookedUpPeople, type ResolvePeople } from './resolve-people.ts'

/**
 * The worker's people: `users:` and `teams:`, plus the email look-up when slack.lookup_users_by_email is on.
 * Without GITHUB_TOKEN the look-up is inert, said once at start-up, as path rules are.
 */
export function configurePeople(
  settings: Pick<Settings, 'gitProvider' | 'users' | 'teams' | 'lookupUsersByEmail' | 'api'>,
  secrets: Pick<Secrets, 'gitToken'>,
  deps: Omit<EmailLookupDeps, 'github' | 'logger'> & { logger: Logger },
): ResolvePeople {
  const people = { users: settings.users, teams: settings.teams }
  if (!settings.lookupUsersByEmail || settings.gitProvider !== 'github') return configuredPeople(people)
  if (secrets.gitToken === undefined) {
    deps.logger.warn('slack.lookup_users_by_email is inert: GITHUB_TOKEN is not set', {
      fix: 'set GITHUB_TOKEN (any token can read public profiles), or map people in users:',
    })
    return configuredPeople(people)
  }
  const github = createGithubClient({ baseUrl: settings.api.github, token: secrets.gitToken })
  return lookedUpPeople({ provider: 'github', people, lookup: createEmailLookup({ ...deps, github }) })
}
