import { redactUrl, redactUrlsIn } from '../log/redact-url.ts'
import { createSlackFetch } from '../slack/slack-fetch.ts'

/** What the checks need to reach Slack: the bot token and SLACK_API_URL (with its trailing slash). */
export interface SlackCheckOptions {
  token: string
  apiUrl: string
  timeoutMs?: number
}

export interface SlackAnswer {
  data: { ok?: boolean; error?: string; [key: string]: unknown }
  headers: Headers
}

/**
 * One Slack Web API call for the checks only: `auth.test` reports the granted scopes in the `x-oauth-scopes`
 * response header, which WebClient does not expose (docs/decisions.md), and using the same path for
 * `conversations.info` keeps both checks alike. Sent with the Slack client's own `fetch` over node:http
 * (src/slack/slack-fetch.ts), not Node's: the server's start-up check is its only HTTP call before the first
 * delivery, and Node's fetch would set up undici's client for it (docs/performance.md). The whole call runs
 * within the timeout (rejecting with its TimeoutError); a status outside 2xx is answered as `http_<status>`.
 * Throws only when Slack cannot be reached.
 */
export async function callSlack(options: SlackCheckOptions, method: string, params: Record<string, string> = {}): Promise<SlackAnswer> {
  const response = await checkFetch()(`${options.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  })
  if (!response.ok) return { data: { ok: false, error: `http_${response.status}` }, headers: response.headers }
  return { data: (await response.json()) as SlackAnswer['data'], headers: response.headers }
}

let shared: typeof fetch | undefined
const checkFetch = () => (shared ??= createSlackFetch())

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
