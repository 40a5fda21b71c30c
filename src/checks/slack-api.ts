import { redactUrl, redactUrlsIn } from '../log/redact-url.ts'
import { callSlackApi, createWebClient, type SlackAnswer } from '../slack/slack-api.ts'

/** What the checks need to reach Slack: the bot token and SLACK_API_URL (with its trailing slash). */
export interface SlackCheckOptions {
  token: string
  apiUrl: string
  timeoutMs?: number
}

/**
 * One Slack Web API call for the checks, setup and smoke, through the one Slack client
 * (src/slack/slack-api.ts), without retries: the answer is read whatever `ok` says, the granted scopes come
 * from it (`response_metadata.scopes`). Throws only when Slack cannot be reached.
 */
export function callSlack(options: SlackCheckOptions, method: string, params: Record<string, string> = {}): Promise<SlackAnswer> {
  return callSlackApi(createWebClient({ token: options.token, apiUrl: options.apiUrl, timeoutMs: options.timeoutMs }), method, params)
}

/** Why Slack could not be reached, and what to do: the system error's code when there is one. */
export function unreachable(apiUrl: string, error: unknown): { reason: string; fix: string } {
  const cause = codeOf((error as { cause?: unknown } | undefined)?.cause) ?? codeOf(error) ?? (error instanceof Error ? error.message : String(error))
  return {
    reason: `Slack unreachable at ${redactUrl(apiUrl)} (${redactUrlsIn(cause)})`,
    fix: 'check the network path to Slack, or SLACK_API_URL if you set it',
  }
}

/** `ECONNREFUSED` and the like; a DOMException's numeric legacy code is not one. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? code : undefined
}
