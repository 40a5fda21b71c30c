import { callSlackApi, createWebClient } from '../slack/slack-api.ts'
import type { CheckResult } from './check-result.ts'
import { unreachable } from './slack-api.ts'

const TARGET = 'SLACK_APP_TOKEN'

/**
 * slack.socket_mode's token, without asking Slack: set, and an app-level token (xapp-…), not the bot token or
 * a user token. The server refuses to start on a FAIL here; SKIP when socket mode is off.
 */
export function appTokenShape(socketMode: boolean, token: string | undefined): CheckResult {
  if (!socketMode) return { name: 'app-token', target: TARGET, status: 'SKIP', reason: 'slack.socket_mode is off: Slack\'s requests come to the HTTP routes' }
  if (token === undefined) {
    return { name: 'app-token', target: TARGET, status: 'FAIL', reason: 'slack.socket_mode is true but SLACK_APP_TOKEN is not set', fix: FIX }
  }
  if (!token.startsWith('xapp-')) {
    const what = token.startsWith('xoxb-') ? 'a bot token (xoxb-…)' : token.startsWith('xoxp-') ? 'a user token (xoxp-…)' : 'not an app-level token'
    return { name: 'app-token', target: TARGET, status: 'FAIL', reason: `SLACK_APP_TOKEN is ${what}`, fix: FIX }
  }
  return { name: 'app-token', target: TARGET, status: 'OK', reason: 'set, an app-level token (xapp-…)' }
}

const FIX = 'create an app-level token with the connections:write scope (Slack app, Basic Information, App-Level Tokens) and set it as SLACK_APP_TOKEN'

/** appTokenShape, then whether Slack accepts it: apps.connections.open answers a socket URL (which is not opened). */
export async function appTokenCheck(socketMode: boolean, token: string | undefined, apiUrl: string): Promise<CheckResult> {
  const shape = appTokenShape(socketMode, token)
  if (shape.status !== 'OK' || token === undefined) return shape
  let answer
  try {
    answer = await callSlackApi(createWebClient({ token, apiUrl }), 'apps.connections.open')
  } catch (error) {
    return { name: 'app-token', target: TARGET, status: 'FAIL', ...unreachable(apiUrl, error) }
  }
  if (answer.data.ok === true) return { name: 'app-token', target: TARGET, status: 'OK', reason: 'accepted by Slack: apps.connections.open gave a socket URL' }
  const error = answer.data.error ?? 'unknown_error'
  return {
    name: 'app-token', target: TARGET, status: 'FAIL', reason: `apps.connections.open answered ${error}`,
    fix: error === 'missing_scope' ? 'give the app-level token the connections:write scope' : error === 'not_allowed_token_type' ? FIX : `${FIX}; and turn Socket Mode on in the Slack app`,
  }
}
