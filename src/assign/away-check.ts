import { errorFields, type Logger } from '../log/logger.ts'
import { ShutdownInterrupt } from '../slack/retry-transient.ts'
import type { SlackClient, SlackStatus } from '../slack/slack-client.ts'
import type { SlackPacer } from '../slack/slack-pacer.ts'
import type { AssignmentStore } from '../store/assignment-store.ts'
import { dayOf } from '../personal/away-command.ts'

/** How long a person's Slack presence and status stand before they are read again. */
export const AWAY_TTL_MS = 5 * 60_000

/**
 * A status that says the person is out: Slack's own suggestions "Vacationing" (:palm_tree:) and "Out sick"
 * (:face_with_thermometer:), and the words people write for it.
 */
const OUT_EMOJI = new Set([':palm_tree:', ':face_with_thermometer:', ':no_entry:'])
const OUT_WORDS = /\b(out of (the )?office|ooo|on (vacation|holiday|leave)|vacationing|out sick|off sick|parental leave)\b/i

/** The status says out of office, and has not ended (`status_expiration` 0 never ends). Pure. */
export function statusSaysOut(status: SlackStatus, now: number): boolean {
  if (status.expiration > 0 && status.expiration * 1000 <= now) return false
  return OUT_EMOJI.has(status.emoji) || OUT_WORDS.test(status.text)
}

export interface AwayCheck {
  /** Why the Slack user is to be passed over (`is away`, `is out of office`, `is away until 2026-12-24`); undefined: they are here. */
  whyAway(slackUser: string): Promise<string | undefined>
}

/**
 * skip_away's look: the person's own `/prherald away` mark (the store, read every time: another replica may
 * have written it), then their Slack status (users.profile.get) and presence (users.getPresence), cached
 * for AWAY_TTL_MS. A look Slack refuses counts as here, and is logged with the fix.
 */
export function createAwayCheck(deps: {
  slack: Pick<SlackClient, 'presence' | 'status'>
  pacer: SlackPacer
  store: Pick<AssignmentStore, 'awayUntil'>
  logger: Logger
  now: () => number
}): AwayCheck {
  const seen = new Map<string, { why: string | undefined; until: number }>()
  const fromSlack = async (user: string): Promise<string | undefined> => {
    const now = deps.now()
    const cached = seen.get(user)
    if (cached && cached.until > now) return cached.why
    let why: string | undefined
    try {
      const status = await deps.pacer.call('users.profile.get', user, () => deps.slack.status(user))
      if (statusSaysOut(status, now)) why = 'is out of office'
      else if (await deps.pacer.call('users.getPresence', user, () => deps.slack.presence(user)) === 'away') why = 'is away'
    } catch (error) {
      if (error instanceof ShutdownInterrupt) throw error
      deps.logger.warn('slack presence or status could not be read; the person counts as here', {
        slack_user: user, ...errorFields(error), fix: 'add the users:read and users.profile:read bot scopes to the Slack app and reinstall it (docs/slack-app.md)',
      })
    }
    seen.set(user, { why, until: now + AWAY_TTL_MS })
    return why
  }
  return {
    async whyAway(user) {
      const until = await deps.store.awayUntil(user)
      if (until !== undefined && until >= dayOf(deps.now())) return `is away until ${until}`
      return fromSlack(user)
    },
  }
}
