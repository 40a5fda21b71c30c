import type { Logger } from '../log/logger.ts'

/** What the Slack client reports about the bot token: refused (with Slack's error) or accepted again. */
export interface SlackTokenObserver {
  refused(slackError: string, fix: string | undefined): void
  accepted(): void
}

export interface SlackTokenState extends SlackTokenObserver {
  /** 'ok', or the error Slack last gave for the token (e.g. 'token_revoked') until a call succeeds again. */
  current(): string
}

/** Remembers whether Slack takes the token, for /healthz; logs each change once, not once per call. */
export function createSlackTokenState(logger: Logger): SlackTokenState {
  let state = 'ok'
  return {
    current: () => state,
    refused(slackError, fix) {
      if (state === slackError) return
      state = slackError
      logger.error('Slack refuses SLACK_BOT_TOKEN; deliveries stay pending and are replayed after a restart with a working token', {
        slack_error: slackError, fix,
      })
    },
    accepted() {
      if (state === 'ok') return
      logger.info('Slack accepts SLACK_BOT_TOKEN again', { previous: state })
      state = 'ok'
    },
  }
}
