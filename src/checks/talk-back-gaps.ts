import type { Env } from '../config/load-config.ts'
import type { ConnectedHost, HostSet } from '../config/connect-hosts.ts'
import type { OAuthClient, TalkBack } from '../hosts/talk-back-contract.ts'
import type { Secrets, Settings } from '../config/settings.ts'
import type { Logger } from '../log/logger.ts'
import { PREVIOUS_TOKEN_KEY, TOKEN_KEY } from '../talk-back/token-cipher.ts'
import type { CheckResult } from './check-result.ts'
import { oauthClientResult, oauthPublicUrlResult, tokenKeyResult } from './talk-back-check.ts'
import { allTalkBackNeeds, talkBackNeeds, talkBackOn } from './talk-back-needs.ts'
import { slackRequestsResult } from './talk-back-slack-check.ts'

export interface TalkBackGapSources {
  settings: Pick<Settings, 'talkBack' | 'socketMode'>
  hosts: HostSet
  /** PRHERALD_TOKEN_KEY (and _PREVIOUS) and PRHERALD_PUBLIC_URL as set. */
  env: Env
  /** A host's OAuth client as set: doctor reads the environment, the server what it read at start. */
  oauthClient(own: ConnectedHost, facet: TalkBack): OAuthClient | undefined
  /** SLACK_SIGNING_SECRET is set (Slack's requests have their HTTP routes). */
  signingSecret: boolean
}

/**
 * What talk-back, as configured, needs that can be judged without asking anyone: each host's OAuth client
 * where people link, the public URL and the token key, and a way for Slack's requests to arrive. One list for
 * prherald-doctor (its FAIL lines) and for the server's start (the rule of docs/operations.md: a missing part
 * is one warning at start and a reason in /readyz, the same words as doctor's), so the two never disagree.
 */
export function talkBackGaps(sources: TalkBackGapSources): CheckResult[] {
  const { settings } = sources
  const all = allTalkBackNeeds({ talkBack: settings.talkBack, hosts: [...sources.hosts.values()] })
  if (!talkBackOn(all)) return []
  const results: CheckResult[] = []
  for (const own of sources.hosts.values()) {
    const needs = talkBackNeeds(settings.talkBack, own)
    if (talkBackOn(needs)) results.push(oauthClientResult(own, needs, (facet) => sources.oauthClient(own, facet)))
  }
  if (all.linking) results.push(oauthPublicUrlResult(sources.env), tokenKeyResult(sources.env))
  results.push(slackRequestsResult(sources.signingSecret, settings.socketMode))
  return results
}

/**
 * At the server's start: the gaps, each one warning that names its fix (doctor's FAIL line, word for word).
 * The server starts without the missing part; what it returns is shown in /readyz's details until fixed.
 */
export function warnTalkBackGaps(deps: { settings: Pick<Settings, 'talkBack' | 'socketMode' | 'publicUrl'>; secrets: Pick<Secrets, 'tokenKeys' | 'slackSigningSecret'>; hosts: HostSet; logger: Logger }): CheckResult[] {
  const { settings, secrets } = deps
  const env: Env = { [TOKEN_KEY]: secrets.tokenKeys?.current, [PREVIOUS_TOKEN_KEY]: secrets.tokenKeys?.previous, PRHERALD_PUBLIC_URL: settings.publicUrl }
  const gaps = talkBackGaps({ settings, hosts: deps.hosts, env, signingSecret: secrets.slackSigningSecret !== undefined, oauthClient: (own) => own.oauth })
  const missing = gaps.filter((r) => r.status === 'FAIL')
  for (const r of missing) {
    deps.logger.warn('talk-back part missing; starting without it', { check: r.name, target: r.target, reason: r.reason, fix: r.fix })
  }
  return missing
}
