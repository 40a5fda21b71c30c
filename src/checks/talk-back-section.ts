import type { Env } from '../config/load-config.ts'
import type { Settings } from '../config/settings.ts'
import type { ConnectedHost, HostSet } from '../config/connect-hosts.ts'
import { isPrheraldError } from '../errors.ts'
import type { OAuthClient, TalkBack } from '../hosts/talk-back-contract.ts'
import { sealedLinksResult, type LinkedKeyIds } from '../talk-back/sealed-links.ts'
import { readTokenCipher } from '../talk-back/token-cipher.ts'
import type { CheckCredentials } from './check-context.ts'
import type { CheckResult } from './check-result.ts'
import { ownCommentResults } from './talk-back-check.ts'
import { oauthClientTakenResult } from './talk-back-client-check.ts'
import { talkBackGaps } from './talk-back-gaps.ts'
import { allTalkBackNeeds, talkBackNeeds, talkBackOn } from './talk-back-needs.ts'
import { eventSubscriptionsResult, talkBackScopeResults } from './talk-back-slack-check.ts'

/**
 * prherald-doctor's [talk-back]: nothing unless slack.talk_back turns something on somewhere. What the server
 * itself warns of at start (talk-back-gaps.ts: each OAuth client where people link, the public URL, the token
 * key, how Slack's requests arrive); then, per host, whether its token endpoint takes the OAuth client as set
 * (talk-back-client-check.ts) and, with `everyone`, prherald's own write access; the bot
 * scopes, and the event subscriptions no token can read. With the database read (`linked`), the links the
 * configured token keys cannot open: the server's start warning, word for word (sealed-links.ts).
 */
export async function talkBackSection(settings: Settings, hosts: HostSet, env: Env, credentials: CheckCredentials, linked?: LinkedKeyIds): Promise<CheckResult[]> {
  const all = allTalkBackNeeds(settings)
  if (!talkBackOn(all)) return []
  const results = talkBackGaps({
    settings, hosts, env, signingSecret: credentials.interactiveRoutes,
    oauthClient: (own, facet) => facet.readOAuth(env, own.apiUrl),
  })
  for (const own of hosts.values()) {
    const needs = talkBackNeeds(settings.talkBack, own)
    const client = talkBackOn(needs) ? readClient(own, env) : undefined
    if (client) results.push(await oauthClientTakenResult(own, client.facet, client.client, callbackUrl(env, own.id)))
    if (needs.ownComments) results.push(...await ownCommentResults(own))
  }
  const sealed = linked ? sealedResult(linked, env) : undefined
  if (sealed) results.push(sealed)
  const slack = credentials.slackToken ? { token: credentials.slackToken, apiUrl: settings.api.slack } : undefined
  results.push(...await talkBackScopeResults(slack, all))
  if (all.threadReplies) results.push(eventSubscriptionsResult())
  return results
}

/** The host's OAuth client as set, when it is (a half-set one is already a FAIL line of talkBackGaps). */
function readClient(own: ConnectedHost, env: Env): { facet: TalkBack; client: OAuthClient } | undefined {
  const facet = own.host.talkBack
  if (!facet) return undefined
  try {
    const client = facet.readOAuth(env, own.apiUrl)
    return client ? { facet, client } : undefined
  } catch (error) {
    if (isPrheraldError(error)) return undefined
    throw error
  }
}

/** The callback the server sends with a host's refresh grants (GitLab's must match the application's). */
const callbackUrl = (env: Env, host: string) => `${env.PRHERALD_PUBLIC_URL?.trim().replace(/\/+$/, '') ?? ''}/oauth/${encodeURIComponent(host)}/callback`

/** The links no configured key opens; a key that cannot be read is already the token key's FAIL line. */
function sealedResult(linked: LinkedKeyIds, env: Env): CheckResult | undefined {
  let cipher
  try {
    cipher = readTokenCipher(env)
  } catch (error) {
    if (isPrheraldError(error)) return undefined
    throw error
  }
  const result = sealedLinksResult(linked, cipher)
  return result && { name: result.name, target: result.target, status: result.status, reason: result.reason, fix: result.fix }
}
