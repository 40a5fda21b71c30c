import { isPrheraldError } from '../errors.ts'
import type { CallLimit } from '../hosts/contract.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { Logger } from '../log/logger.ts'
import type { SlackClient } from '../slack/slack-client.ts'
import type { PeopleCache, PersonLookup } from '../store/store.ts'

/** A git-host login's Slack user id, or undefined. Never throws. */
export type LookupUser = (login: string) => Promise<string | undefined>

const HOUR = 3_600_000
/**
 * How long an answer is kept. A match rarely changes; a missing public email or Slack account may be fixed
 * the same day; a failure (GitHub or Slack down, a scope missing) is retried after an hour, so an outage
 * costs one call per person an hour rather than one per delivery, and is logged that often.
 */
export const LOOKUP_TTL_MS: Record<PersonLookup['outcome'], number> = { found: 7 * 24 * HOUR, not_found: 24 * HOUR, failed: HOUR }

export interface EmailLookupDeps {
  /** The host whose logins these are: the cache keys a login by its host. */
  provider: string
  store: PeopleCache
  /** The host's look-up of a login's public profile email (GitHost's HostApi.emailOf). */
  emailOf: (login: string) => Promise<string | undefined>
  slack: Pick<SlackClient, 'lookupUserByEmail'>
  pacer: Pick<SlackPacer, 'call'>
  /** The git-host call slots path routing uses. */
  limit: CallLimit
  logger: Logger
  now?: () => number
}

/**
 * slack.lookup_users_by_email: the git host's profile of the login for its public email (webhooks carry
 * none), then Slack's users.lookupByEmail, cached in the database. The email is used for the one call and
 * never stored or logged. Concurrent look-ups of one login share one pair of calls.
 */
export function createEmailLookup(deps: EmailLookupDeps): LookupUser {
  const now = deps.now ?? Date.now
  const inFlight = new Map<string, Promise<string | undefined>>()

  async function lookUp(login: string): Promise<PersonLookup> {
    let step: 'git_host' | 'slack' = 'git_host'
    try {
      const email = await deps.limit(() => deps.emailOf(login))
      if (!email) return { provider: deps.provider, login, outcome: 'not_found', slackUserId: undefined, expiresAt: now() + LOOKUP_TTL_MS.not_found }
      step = 'slack'
      const id = await deps.pacer.call('users.lookupByEmail', '', () => deps.slack.lookupUserByEmail(email))
      const outcome = id ? 'found' : 'not_found'
      return { provider: deps.provider, login, outcome, slackUserId: id, expiresAt: now() + LOOKUP_TTL_MS[outcome] }
    } catch (error) {
      // Never the email, nor the raw error (Slack's could quote the request): the code and the fix say enough.
      deps.logger.warn('person lookup by email failed; shown as plain text', {
        login, step, error_code: isPrheraldError(error) ? error.code : 'unexpected', ...(isPrheraldError(error) && error.fix ? { fix: error.fix } : {}),
      })
      return { provider: deps.provider, login, outcome: 'failed', slackUserId: undefined, expiresAt: now() + LOOKUP_TTL_MS.failed }
    }
  }

  async function resolve(login: string): Promise<string | undefined> {
    try {
      const cached = await deps.store.findPersonLookup(deps.provider, login)
      if (cached && cached.expiresAt > now()) return cached.slackUserId
      const fresh = await lookUp(login)
      await deps.store.savePersonLookup(fresh)
      return fresh.slackUserId
    } catch (error) {
      deps.logger.warn('person lookup cache unavailable; shown as plain text', { login, error_code: isPrheraldError(error) ? error.code : 'unexpected' })
      return undefined
    }
  }

  return (login) => {
    const key = login.toLowerCase()
    const running = inFlight.get(key)
    if (running) return running
    const result = resolve(key).finally(() => inFlight.delete(key))
    inFlight.set(key, result)
    return result
  }
}
