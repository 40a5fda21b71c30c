import type { Logger } from '../log/logger.ts'

/** What one person may do from Slack in a minute (docs/talk-back.md, "Security"): more get a polite refusal. */
export const PER_MINUTE = { reviews: 5, replies: 20 } as const

/**
 * A sliding one-minute window per Slack user and kind. Each replica counts what it handles: with several
 * replicas a person may get up to that many times the limit, which still bounds a runaway client.
 */
export function createPersonLimits(deps: { now: () => number; perMinute?: Partial<Record<keyof typeof PER_MINUTE, number>> }) {
  const seen = new Map<string, number[]>()
  return {
    /** Takes one action of `kind` for `slackUser`; false when they are over their minute's limit (nothing is counted then). */
    take(kind: keyof typeof PER_MINUTE, slackUser: string): boolean {
      const key = `${kind}\n${slackUser}`
      const now = deps.now()
      const recent = (seen.get(key) ?? []).filter((at) => at > now - 60_000)
      if (recent.length >= (deps.perMinute?.[kind] ?? PER_MINUTE[kind])) {
        seen.set(key, recent)
        return false
      }
      recent.push(now)
      seen.set(key, recent)
      // Forgotten once quiet: memory follows the people active this minute.
      for (const [other, times] of seen) if (times.every((at) => at <= now - 60_000)) seen.delete(other)
      return true
    },
  }
}

export type PersonLimits = ReturnType<typeof createPersonLimits>

/** One line per action taken as a person, saying it is an audit line; never a token or the text they wrote. */
export function auditTalkBack(logger: Logger, action: { slackUser: string; host: string; login: string | undefined; action: string; pr: string; outcome: string }): void {
  logger.info('audit: talk-back action', {
    slack_user: action.slackUser, host: action.host, host_login: action.login ?? '-', action: action.action, pr: action.pr, outcome: action.outcome,
  })
}
