import { PERMANENT_SLACK_ERRORS } from '../slack/slack-client.ts'
import type { CheckResult } from './check-result.ts'
import { callSlack, unreachable, type SlackCheckOptions } from './slack-api.ts'

/** The bot scopes the lifecycle's calls need: chat.postMessage and chat.update, reactions.add and reactions.remove. */
export const REQUIRED_SLACK_SCOPES = ['chat:write', 'reactions:write'] as const

const TARGET = 'SLACK_BOT_TOKEN'

/** slack-auth: `auth.test` accepts the token and the token carries the scopes prherald needs. */
export async function slackAuthCheck(options: SlackCheckOptions | undefined): Promise<CheckResult> {
  if (!options || options.token.trim() === '') {
    return {
      name: 'slack-auth', target: TARGET, status: 'FAIL', reason: 'SLACK_BOT_TOKEN is not set',
      fix: 'set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…) of your Slack app',
    }
  }
  let answer
  try {
    answer = await callSlack(options, 'auth.test')
  } catch (error) {
    return { name: 'slack-auth', target: TARGET, status: 'FAIL', ...unreachable(options.apiUrl, error) }
  }
  if (!answer.data.ok) {
    const error = answer.data.error ?? 'unknown_error'
    return {
      name: 'slack-auth', target: TARGET, status: 'FAIL', reason: `auth.test answered ${error}`,
      fix: PERMANENT_SLACK_ERRORS[error] ?? 'check SLACK_BOT_TOKEN and SLACK_API_URL; see https://api.slack.com/methods/auth.test',
    }
  }
  const who = `as ${String(answer.data.user ?? 'the bot')} in ${String(answer.data.team ?? 'the workspace')}`
  const header = answer.headers.get('x-oauth-scopes')
  // Slack sends the header for bot tokens; if a proxy strips it, the scopes cannot be checked here, and a
  // missing one still surfaces as missing_scope on the first post.
  if (header === null) return { name: 'slack-auth', target: TARGET, status: 'OK', reason: `auth.test ok ${who}; scopes not reported, not checked` }
  const granted = new Set(header.split(',').map((s) => s.trim()))
  const missing = REQUIRED_SLACK_SCOPES.filter((s) => !granted.has(s))
  if (missing.length > 0) {
    return {
      name: 'slack-auth', target: TARGET, status: 'FAIL', reason: `the token lacks the scope${missing.length === 1 ? '' : 's'} ${missing.join(', ')}`,
      fix: `add the bot scope${missing.length === 1 ? '' : 's'} ${missing.join(', ')} under OAuth & Permissions in the Slack app, reinstall it, and set the new SLACK_BOT_TOKEN`,
    }
  }
  return { name: 'slack-auth', target: TARGET, status: 'OK', reason: `auth.test ok ${who}; scopes include ${REQUIRED_SLACK_SCOPES.join(', ')}` }
}
