import { SLACK_PATHS } from '../http/slack-route.ts'
import type { CheckResult } from './check-result.ts'
import { callSlack, type SlackCheckOptions } from './slack-api.ts'
import type { TalkBackNeeds } from './talk-back-needs.ts'

/** A bot scope talk-back uses, what it carries, and whether that feature works at all without it. */
interface TalkBackScope {
  scope: string
  feature: string
  required: boolean
}

/** The scopes the configured talk-back features need (docs/slack-app.md#talk-back). */
export function talkBackScopes(needs: TalkBackNeeds): TalkBackScope[] {
  return [
    ...(needs.threadReplies ? [
      { scope: 'channels:history', feature: 'thread replies in public channels (Slack sends their message events only with it)', required: true },
      { scope: 'groups:history', feature: 'thread replies in private channels', required: false },
      { scope: 'reactions:write', feature: 'the reaction on a reply that became a comment', required: true },
      { scope: 'chat:write', feature: 'the note to a person whose reply did not become a comment', required: true },
    ] : []),
    // users.info: the name prherald's own comments give a person, and whether they are a guest or from another workspace.
    ...(needs.ownComments ? [
      { scope: 'users:read', feature: 'the replies of people who are not linked (their name, and whether they are a guest, come from users.info)', required: true },
    ] : []),
    ...(needs.linking ? [
      { scope: 'commands', feature: '/prherald link (the Home tab\'s link button still works)', required: false },
      { scope: 'im:write', feature: 'the direct message when a link ends', required: false },
    ] : []),
  ]
}

/** Slack's events and clicks reach prherald: the signed HTTP routes or Socket Mode. */
export function slackRequestsResult(signingSecret: boolean, socketMode: boolean): CheckResult {
  if (socketMode) return { name: 'slack requests', target: 'slack.socket_mode', status: 'OK', reason: 'true: thread replies and review clicks arrive over Socket Mode' }
  if (signingSecret) return { name: 'slack requests', target: 'SLACK_SIGNING_SECRET', status: 'OK', reason: `set: thread replies arrive at ${SLACK_PATHS.event}, review clicks at ${SLACK_PATHS.interactive}` }
  return {
    name: 'slack requests', target: 'SLACK_SIGNING_SECRET', status: 'FAIL', reason: 'unset and no Socket Mode: Slack\'s events (thread replies) and clicks (reviews) cannot reach prherald',
    fix: 'set SLACK_SIGNING_SECRET and the Slack app\'s request URLs, or slack.socket_mode: true with SLACK_APP_TOKEN (docs/slack-app.md)',
  }
}

/** What no token can tell: the app's event subscriptions. Said plainly, as a step. */
export function eventSubscriptionsResult(): CheckResult {
  return {
    name: 'slack events', target: 'message.channels, message.groups', status: 'SKIP',
    reason: 'cannot be read with the bot token: the Slack app must subscribe to these bot events (docs/slack-app.md#talk-back)',
  }
}

/** The token's scopes (auth.test's `response_metadata.scopes`) against the features': a line per one lacking, or one OK. */
export async function talkBackScopeResults(options: SlackCheckOptions | undefined, needs: TalkBackNeeds): Promise<CheckResult[]> {
  const wanted = talkBackScopes(needs)
  if (wanted.length === 0) return []
  const names = wanted.map((w) => w.scope).join(', ')
  const skip = (why: string): CheckResult[] => [{ name: 'slack scopes', target: 'SLACK_BOT_TOKEN', status: 'SKIP', reason: `${why}: ${names} not checked` }]
  if (!options) return skip('SLACK_BOT_TOKEN unset')
  let answer
  try {
    answer = await callSlack(options, 'auth.test')
  } catch {
    return skip('Slack unreachable')
  }
  if (!answer.data.ok) return skip(`auth.test answered ${String(answer.data.error ?? 'unknown_error')}`)
  if (answer.scopes === undefined) return skip('Slack did not report the token\'s scopes')
  const granted = new Set(answer.scopes)
  const missing = wanted.filter((w) => !granted.has(w.scope))
  if (missing.length === 0) return [{ name: 'slack scopes', target: 'SLACK_BOT_TOKEN', status: 'OK', reason: `the token has ${names}` }]
  return missing.map(({ scope, feature, required }) => ({
    name: 'slack scope', target: scope, status: required ? 'FAIL' : 'WARN',
    reason: `the token lacks ${scope}, which ${required ? 'talk-back needs for' : 'disables'} ${feature}`,
    fix: `add the bot scope ${scope} under OAuth & Permissions in the Slack app and reinstall the app; set SLACK_BOT_TOKEN again if Slack gives a new token (docs/slack-app.md#talk-back)`,
  }))
}
