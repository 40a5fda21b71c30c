import { PERMANENT_SLACK_ERRORS } from '../slack/classify-slack-error.ts'
import type { CheckResult } from './check-result.ts'
import { missingScopeResults, type FeatureScope } from './personal-scopes.ts'
import { callSlack, unreachable, type SlackCheckOptions } from './slack-api.ts'

/** The bot scopes the lifecycle's calls need: chat.postMessage and chat.update, reactions.add and reactions.remove. */
export const REQUIRED_SLACK_SCOPES = ['chat:write', 'reactions:write'] as const

/**
 * The scopes for reading a channel's history, which prherald uses to look for a post whose answer was lost
 * before it posts again (docs/reliability.md, 11.10). Without them it still works, as before: such a post
 * may show twice. Public and private channels always; direct messages only when a `D…` channel is mapped.
 */
export const HISTORY_SLACK_SCOPES = ['channels:history', 'groups:history'] as const
export const DIRECT_MESSAGE_HISTORY_SCOPES = ['im:history', 'mpim:history'] as const

export function historyScopesFor(channels: readonly string[]): string[] {
  return [...HISTORY_SLACK_SCOPES, ...(channels.some((c) => c.startsWith('D')) ? DIRECT_MESSAGE_HISTORY_SCOPES : [])]
}

/** users.lookupByEmail's scope, needed only with slack.lookup_users_by_email: true. */
export const LOOKUP_SCOPE = 'users:read.email'

const TARGET = 'SLACK_BOT_TOKEN'

/** auth.test answers that say Slack is down or busy, not that it refuses the token: `http_<status>` is callSlack's. */
const UNAVAILABLE = /^(http_(5\d\d|429)|internal_error|fatal_error|service_unavailable|request_timeout|ratelimited)$/

/** slack-auth's answer, and a slack-scope WARN per personal scope the token lacks (none unless auth.test passed). */
export interface SlackAccess {
  auth: CheckResult
  scopes: CheckResult[]
}

/** slack-auth alone, for those who check the token only (the setup wizard). */
export async function slackAuthCheck(options: SlackCheckOptions | undefined, channels: readonly string[] = [], featureScopes: readonly string[] = []): Promise<CheckResult> {
  return (await slackAccessCheck(options, channels, featureScopes)).auth
}

/**
 * slack-auth: `auth.test` accepts the token and the token carries the scopes prherald needs (FAIL) and the
 * history scopes for the mapped `channels` (WARN: a note, never a failure); and, from the same answer, the
 * `personal` features' scopes (a WARN each, naming the feature: prherald works without them).
 */
export async function slackAccessCheck(
  options: SlackCheckOptions | undefined, channels: readonly string[] = [], featureScopes: readonly string[] = [], personal: readonly FeatureScope[] = [],
): Promise<SlackAccess> {
  const auth = await authCheck(options, channels, featureScopes)
  if (auth.granted === undefined || auth.result.status === 'FAIL') return { auth: auth.result, scopes: [] }
  return { auth: auth.result, scopes: missingScopeResults(personal, auth.granted) }
}

async function authCheck(options: SlackCheckOptions | undefined, channels: readonly string[], featureScopes: readonly string[]): Promise<{ result: CheckResult; granted?: Set<string> }> {
  const answer = await authTest(options)
  if ('result' in answer) return answer
  const { who, scopes } = answer
  // Slack reports the scopes (x-oauth-scopes) for bot tokens; if a proxy strips them, they cannot be checked here, and a
  // missing one still surfaces as missing_scope on the first call that needs it.
  if (scopes === undefined) return { result: { name: 'slack-auth', target: TARGET, status: 'OK', reason: `auth.test ok ${who}; scopes not reported, not checked` } }
  const granted = new Set(scopes)
  return { result: judgeScopes(granted, who, channels, featureScopes), granted }
}

/** auth.test's verdict on the token: who it is and its granted scopes, or the FAIL. */
async function authTest(options: SlackCheckOptions | undefined): Promise<{ result: CheckResult } | { who: string; scopes: string[] | undefined }> {
  if (!options || options.token.trim() === '') {
    return { result: {
      name: 'slack-auth', target: TARGET, status: 'FAIL', reason: 'SLACK_BOT_TOKEN is not set',
      fix: 'set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…) of your Slack app',
    } }
  }
  let answer
  try {
    answer = await callSlack(options, 'auth.test')
  } catch (error) {
    return { result: { name: 'slack-auth', target: TARGET, status: 'FAIL', ...unreachable(options.apiUrl, error), unavailable: true } }
  }
  if (!answer.data.ok) {
    const error = answer.data.error ?? 'unknown_error'
    return { result: {
      name: 'slack-auth', target: TARGET, status: 'FAIL', reason: `auth.test answered ${error}`,
      fix: PERMANENT_SLACK_ERRORS[error] ?? 'check SLACK_BOT_TOKEN and SLACK_API_URL; see https://api.slack.com/methods/auth.test',
      ...(UNAVAILABLE.test(error) ? { unavailable: true } : {}),
    } }
  }
  return { who: `as ${String(answer.data.user ?? 'the bot')} in ${String(answer.data.team ?? 'the workspace')}`, scopes: answer.scopes }
}

function judgeScopes(granted: ReadonlySet<string>, who: string, channels: readonly string[], featureScopes: readonly string[]): CheckResult {
  const missing = [...REQUIRED_SLACK_SCOPES, ...featureScopes].filter((s) => !granted.has(s))
  if (missing.length > 0) {
    return {
      name: 'slack-auth', target: TARGET, status: 'FAIL', reason: `the token lacks the scope${missing.length === 1 ? '' : 's'} ${missing.join(', ')}`,
      fix: `add the bot scope${missing.length === 1 ? '' : 's'} ${missing.join(', ')} under OAuth & Permissions in the Slack app, reinstall it, and set the new SLACK_BOT_TOKEN`,
    }
  }
  const noHistory = historyScopesFor(channels).filter((s) => !granted.has(s))
  if (noHistory.length > 0) {
    return {
      name: 'slack-auth', target: TARGET, status: 'WARN',
      reason: `auth.test ok ${who}; the token lacks ${noHistory.join(', ')}: a post whose answer is lost cannot be looked up in the channel, and may show twice`,
      fix: `add the bot scope${noHistory.length === 1 ? '' : 's'} ${noHistory.join(', ')} under OAuth & Permissions in the Slack app, reinstall it, and set the new SLACK_BOT_TOKEN`,
    }
  }
  return { name: 'slack-auth', target: TARGET, status: 'OK', reason: `auth.test ok ${who}; scopes include ${[...REQUIRED_SLACK_SCOPES, ...featureScopes, ...historyScopesFor(channels)].join(', ')}` }
}
