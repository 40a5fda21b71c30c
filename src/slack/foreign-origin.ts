/** The workspace and app a signed Slack request names (`team_id`, `api_app_id`), or SLACK_BOT_TOKEN's (auth.test). */
export interface SlackOrigin {
  teamId: string | undefined
  appId: string | undefined
}

/**
 * The one rule for every request Slack signs (clicks, commands, events): one app's signing secret signs its
 * requests in every workspace it is installed in, so a request counts only from the token's workspace and,
 * when auth.test names the app, from that app. A request that names no app is not the app's: Slack always
 * sends `api_app_id`, and a rule that let its absence through would be a second, weaker rule.
 */
export function foreignOrigin(own: SlackOrigin, origin: SlackOrigin): 'other_workspace' | 'other_app' | undefined {
  if (own.teamId === undefined || origin.teamId !== own.teamId) return 'other_workspace'
  if (own.appId !== undefined && origin.appId !== own.appId) return 'other_app'
  return undefined
}
