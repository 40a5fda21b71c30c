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
