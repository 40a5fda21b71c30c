import { PrheraldError } from '../errors.ts'

/**
 * Posts a slash command's late answer to its `response_url`, only when that URL is Slack's own
 * (`https://hooks.slack.com/…`, or the origin of SLACK_API_URL, where a Slack-compatible server answers):
 * anything else would let a forged request make prherald post wherever it says. The URL is a credential
 * for that one answer, so it is never logged.
 */
export function isSlackResponseUrl(url: string, slackApiUrl: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol === 'https:' && parsed.hostname === 'hooks.slack.com' && parsed.port === '') return true
  return parsed.origin === new URL(slackApiUrl).origin
}

/**
 * Posts `text` to `url`; false when the URL's server refused it. A failure to send throws an error that names
 * only its kind: fetch's own errors quote the URL (with any user-info: "Request cannot be constructed from a
 * URL that includes credentials: …") and its cause the address, and whoever logs the error would log them.
 */
export async function respondLater(url: string, text: string, timeoutMs = 5000): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    return res.ok
  } catch (error) {
    throw new PrheraldError('slack_transient', `the answer could not be sent to the command's response_url (${failureKind(error)})`)
  }
}

/** `TimeoutError`, `ECONNREFUSED`, `TypeError`: what went wrong, without the message that may quote the URL. */
function failureKind(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined
  if (typeof cause?.code === 'string' && /^[A-Z_]+$/.test(cause.code)) return cause.code
  return error instanceof Error && /^[A-Za-z]+$/.test(error.name) ? error.name : 'unknown'
}
