import { redactUrl, redactUrlsIn } from '../log/redact-url.ts'

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
 * One Slack Web API call with plain fetch, for the checks only: `auth.test` reports the granted scopes in
 * the `x-oauth-scopes` response header, which WebClient does not expose (docs/decisions.md), and using the
 * same path for `conversations.info` keeps both checks alike. Throws only when Slack cannot be reached.
 */
export async function callSlack(options: SlackCheckOptions, method: string, params: Record<string, string> = {}): Promise<SlackAnswer> {
  const response = await fetch(`${options.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  })
  if (!response.ok) {
    await response.body?.cancel()
    return { data: { ok: false, error: `http_${response.status}` }, headers: response.headers }
  }
  return { data: (await response.json()) as SlackAnswer['data'], headers: response.headers }
}

export function unreachable(apiUrl: string, error: unknown): { reason: string; fix: string } {
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error instanceof Error ? error.message : String(error))
  return {
    reason: `Slack unreachable at ${redactUrl(apiUrl)} (${redactUrlsIn(cause)})`,
    fix: 'check the network path to Slack, or SLACK_API_URL if you set it',
  }
}
