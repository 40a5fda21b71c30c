import type { Env } from '../config/load-config.ts'
import type { Settings } from '../config/settings.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import type { CheckCredentials } from './check-context.ts'
import type { CheckResult } from './check-result.ts'
import { ownCommentResults } from './talk-back-check.ts'
import { talkBackGaps } from './talk-back-gaps.ts'
import { allTalkBackNeeds, talkBackNeeds, talkBackOn } from './talk-back-needs.ts'
import { eventSubscriptionsResult, talkBackScopeResults } from './talk-back-slack-check.ts'

/**
 * prherald-doctor's [talk-back]: nothing unless slack.talk_back turns something on somewhere. What the server
 * itself warns of at start (talk-back-gaps.ts: each OAuth client where people link, the public URL, the token
 * key, how Slack's requests arrive); then, per host with `everyone`, prherald's own write access; the bot
 * scopes, and the event subscriptions no token can read.
 */
export async function talkBackSection(settings: Settings, hosts: HostSet, env: Env, credentials: CheckCredentials): Promise<CheckResult[]> {
  const all = allTalkBackNeeds(settings)
  if (!talkBackOn(all)) return []
  const results = talkBackGaps({
    settings, hosts, env, signingSecret: credentials.interactiveRoutes,
    oauthClient: (own, facet) => facet.readOAuth(env, own.apiUrl),
  })
  for (const own of hosts.values()) {
    if (talkBackNeeds(settings.talkBack, own).ownComments) results.push(...await ownCommentResults(own))
  }
  const slack = credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined
  results.push(...await talkBackScopeResults(slack, all))
  if (all.threadReplies) results.push(eventSubscriptionsResult())
  return results
}
