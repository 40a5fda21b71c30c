import { isPrheraldError } from '../errors.ts'
import type { GitHost } from '../hosts/contract.ts'
import type { TalkBackApi } from '../hosts/talk-back-contract.ts'
import type { OAuthFlows } from './oauth-flows.ts'
import type { TokenVault } from './token-vault.ts'

/**
 * The callback's decision (docs/talk-back.md, "Whose account it is"): the flow is taken once by the browser
 * that started it, the code becomes tokens, and the account the host names must be the one prherald already
 * maps to the Slack user who asked. A link forwarded to someone else and authorised by them links nothing:
 * their fresh token is revoked at once and the refusal says how to fix `users:`. The result is for the
 * callback's small HTML page; it never holds a token.
 */
export interface CompleteLinkDeps {
  flows: OAuthFlows
  vault: TokenVault
  hostOf(id: string): GitHost
  apiOf(host: string): TalkBackApi | undefined
  redirectUri(host: string): string
  /** The `users:` keys that map to this Slack user on this host (from `users:`, or the email look-up). */
  keysOf(slackUser: string, host: string): Promise<readonly string[]>
}

export type LinkResult =
  | { outcome: 'linked'; host: string; slackUser: string; login: string }
  | { outcome: 'refused'; reason: LinkRefusal; message: string; host?: string; slackUser?: string; tried?: string }

export type LinkRefusal = 'unknown' | 'expired' | 'wrong_browser' | 'denied' | 'host_refused' | 'host_unavailable' | 'not_configured' | 'wrong_account'

/** The host said no to the code or the token (its words are shown); anything else is not a refusal. */
const HOST_SAID_NO = ['git_host_auth', 'git_host_refused', 'git_host_scope', 'git_host_not_found'] as const

const FLOW_WORDS: Record<'unknown' | 'expired' | 'wrong_browser', string> = {
  unknown: 'This link was already used, or is not one prherald made. Ask for a new one with /prherald link.',
  expired: 'This link is more than ten minutes old. Ask for a new one with /prherald link.',
  wrong_browser: 'This link was opened in another browser than the one it started in. Open the link /prherald link gave you in one browser, from start to end.',
}

export async function completeLink(deps: CompleteLinkDeps, callback: { state: string; code: string | undefined; cookie: string | undefined; error?: string | undefined }): Promise<LinkResult> {
  const flow = await deps.flows.finish(callback.state, callback.cookie)
  if (flow.outcome !== 'taken') return { outcome: 'refused', reason: flow.outcome, message: FLOW_WORDS[flow.outcome] }
  const { slackUser } = flow
  const host = deps.hostOf(flow.host)
  const api = deps.apiOf(host.id)
  const about = { host: host.id, slackUser }
  if (!api) return { outcome: 'refused', reason: 'not_configured', message: `Linking ${host.words.name} accounts is not configured on this prherald.`, ...about }
  if (callback.error || !callback.code) {
    return { outcome: 'refused', reason: 'denied', message: `${host.words.name} did not authorise prherald${callback.error ? ` (${callback.error})` : ''}. Nothing was linked.`, ...about }
  }
  let tokens
  let account
  try {
    tokens = await api.exchangeCode({ code: callback.code, redirectUri: deps.redirectUri(host.id), codeVerifier: flow.codeVerifier })
    account = await api.account(tokens.accessToken)
  } catch (error) {
    if (HOST_SAID_NO.some((code) => isPrheraldError(error, code))) {
      const says = isPrheraldError(error) ? error.hostSays ?? error.message : ''
      return { outcome: 'refused', reason: 'host_refused', message: `${host.words.name} refused: ${says}. Nothing was linked.`, ...about }
    }
    // Unreachable, a 5xx, an answer that is not the host's (a proxy's page): nothing was refused, so nothing to fix but to wait.
    const why = isPrheraldError(error) ? error.message : 'no answer'
    return { outcome: 'refused', reason: 'host_unavailable', message: `${why}. Nothing was linked; try again in a while with /prherald link ${host.id}.`, ...about }
  }
  const key = host.people.keyOf({ login: account.login, accountId: account.accountId })
  const fold = (k: string) => (host.people.caseInsensitive ? k.toLowerCase() : k)
  const expected = await deps.keysOf(slackUser, host.id)
  if (!expected.some((k) => fold(k) === fold(key))) {
    // Nothing of the other account stays: its token is ended where the host allows, and never stored.
    await api.revoke(tokens).catch(() => undefined)
    // Whoever holds this browser may not be the person the link was made for: the account prherald expects is not shown.
    return {
      outcome: 'refused', reason: 'wrong_account', ...about, tried: key,
      message: `${host.words.name} says this is "${key}", which is not the account prherald has for the Slack user who asked for this link. ` +
        `Nothing was linked. If "${key}" is yours, ask whoever runs prherald to map it to you under users: in config.yaml, then link again.`,
    }
  }
  await deps.vault.link(slackUser, host.id, tokens, { login: account.login, accountKey: key })
  return { outcome: 'linked', host: host.id, slackUser, login: account.login }
}
