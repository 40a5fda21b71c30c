import { signSlackBody, TEST_SLACK_SIGNING_SECRET, type InteractionOptions } from './slack-interaction.ts'

/** A slash command or an Events API request, signed v0 as Slack signs it (options as for interactions). */
export async function sendSignedSlack(baseUrl: string, path: string, body: string, options: InteractionOptions = {}): Promise<Response> {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000))
  const merged: Record<string, string | undefined> = {
    'content-type': body.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': signSlackBody(options.secret ?? TEST_SLACK_SIGNING_SECRET, timestamp, body),
    ...options.headers,
  }
  const headers = Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined))
  return fetch(`${baseUrl}${path}`, { method: 'POST', headers, body })
}

/** `/prherald <text>` from `user`, with the fields Slack sends (team T0ACME, app A0PRHERALD as the fake's auth.test). */
export function commandForm(user: string, text: string, over: Record<string, string> = {}): string {
  return new URLSearchParams({
    token: 'legacy', team_id: 'T0ACME', api_app_id: 'A0PRHERALD', channel_id: 'C0000000001', user_id: user, command: '/prherald', text,
    trigger_id: `${Math.random()}`.slice(2), response_url: 'https://hooks.slack.com/commands/T0ACME/1/xyz', ...over,
  }).toString()
}

/** An Events API `app_home_opened` for `user`'s home tab, as Slack sends it. */
export function homeOpened(user: string, eventId: string, team = 'T0ACME'): string {
  return JSON.stringify({
    type: 'event_callback', team_id: team, api_app_id: 'A0PRHERALD', event_id: eventId,
    event: { type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' },
  })
}
