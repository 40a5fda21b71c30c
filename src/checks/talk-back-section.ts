import type { Env } from '../config/load-config.ts'
import type { Settings } from '../config/settings.ts'
import type { HostSet } from '../config/connect-hosts.ts'
import type { CheckCredentials } from './check-context.ts'
import type { CheckResult } from './check-result.ts'
import { oauthClientResult, oauthPublicUrlResult, ownCommentResults, tokenKeyResult } from './talk-back-check.ts'
import { allTalkBackNeeds, talkBackNeeds, talkBackOn } from './talk-back-needs.ts'
import { eventSubscriptionsResult, slackRequestsResult, talkBackScopeResults } from './talk-back-slack-check.ts'

/**
 * prherald-doctor's [talk-back]: nothing unless slack.talk_back turns something on somewhere. Per host with
 * linking, its OAuth client; per host with `everyone`, prherald's own write access; once, the public URL and the
 * token key (where people link), how Slack's requests arrive, the bot scopes, and the event subscriptions no
 * token can read.
 */
export async function talkBackSection(settings: Settings, hosts: HostSet, env: Env, credentials: CheckCredentials): Promise<CheckResult[]> {
  const all = allTalkBackNeeds(settings)
  if (!talkBackOn(all)) return []
  const results: CheckResult[] = []
  for (const own of hosts.values()) {
    const needs = talkBackNeeds(settings.talkBack, own)
    if (!talkBackOn(needs)) continue
    results.push(oauthClientResult(own, needs, env))
    if (needs.ownComments) results.push(...await ownCommentResults(own))
  }
  if (all.linking) results.push(oauthPublicUrlResult(env), tokenKeyResult(env))
  results.push(slackRequestsResult(credentials.interactiveRoutes, settings.socketMode))
  const slack = credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined
  results.push(...await talkBackScopeResults(slack, all))
  if (all.threadReplies) results.push(eventSubscriptionsResult())
  return results
}
