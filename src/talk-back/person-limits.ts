import type { Logger } from '../log/logger.ts'
import type { ActionCounts } from '../store/action-count-store.ts'

/** What one person may do from Slack in a minute (docs/talk-back.md, "Security"): more get a polite refusal. */
export const PER_MINUTE = { reviews: 5, replies: 20 } as const

const WINDOW_MS = 60_000

/**
 * A sliding one-minute window per Slack user and kind, counted in the store (ActionCounts): replicas on one
 * PostgreSQL database count a person's actions together, whichever replica Slack sends each one to.
 */
export function createPersonLimits(deps: { store: ActionCounts; now: () => number; perMinute?: Partial<Record<keyof typeof PER_MINUTE, number>> }) {
  return {
    /** Takes one action of `kind` for `slackUser`; false when they are over their minute's limit (nothing is counted then). */
    take(kind: keyof typeof PER_MINUTE, slackUser: string): Promise<boolean> {
      return deps.store.takeAction(kind, slackUser, deps.now(), deps.perMinute?.[kind] ?? PER_MINUTE[kind], WINDOW_MS)
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
