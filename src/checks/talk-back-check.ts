import type { ConnectedHost } from '../config/connect-hosts.ts'
import type { Env } from '../config/load-config.ts'
import type { HostSettings } from '../config/settings.ts'
import { publicUrlProblem } from '../config/public-url.ts'
import { isPrheraldError } from '../errors.ts'
import { redactUrl } from '../log/redact-url.ts'
import { listRoutes } from '../routing/resolve-route.ts'
import { PREVIOUS_TOKEN_KEY, readTokenCipher, TOKEN_KEY } from '../talk-back/token-cipher.ts'
import type { CheckResult } from './check-result.ts'
import type { TalkBackNeeds } from './talk-back-needs.ts'
import type { OAuthClient, TalkBack } from '../hosts/talk-back-contract.ts'

const WALK_THROUGH = 'docs/talk-back.md#turning-it-on'

/**
 * The host's OAuth client: required where people link (reviews, `linked` replies), optional with `everyone` alone.
 * `read` gives the client as set: doctor reads the environment, the server what it read at start.
 */
export function oauthClientResult(own: HostSettings, needs: TalkBackNeeds, read: (facet: TalkBack) => OAuthClient | undefined): CheckResult {
  const { name } = own.host.words
  const facet = own.host.talkBack
  if (!facet) return { name: 'oauth client', target: own.id, status: 'FAIL', reason: `${name} offers no talk-back`, fix: `turn slack.talk_back off for the ${name} mappings` }
  const { clientId, clientSecret } = facet.variables
  let client
  try {
    client = read(facet)
  } catch (error) {
    if (!isPrheraldError(error)) throw error
    return { name: 'oauth client', target: clientId, status: 'FAIL', reason: error.message, fix: error.fix }
  }
  if (client) return { name: 'oauth client', target: clientId, status: 'OK', reason: `${clientId} and ${clientSecret} set; ${name}'s OAuth pages at ${redactUrl(client.webUrl)}` }
  if (!needs.linking) {
    return { name: 'oauth client', target: clientId, status: 'SKIP', reason: `unset (optional with thread_replies: everyone): nobody links a ${name} account, prherald posts every reply` }
  }
  return {
    name: 'oauth client', target: clientId, status: 'FAIL',
    reason: `${clientId} and ${clientSecret} are unset: nobody can link a ${name} account, so reviews and linked replies cannot be made`,
    fix: `create ${name}'s OAuth application (${WALK_THROUGH}) and set both variables`,
  }
}

/**
 * prherald's own write access, for the replies of people who are not linked: checked where the host's API says
 * (a GitHub App's installation permissions), otherwise said plainly what it needs and that it is not checked.
 */
export async function ownCommentResults(own: ConnectedHost): Promise<CheckResult[]> {
  const { name } = own.host.words
  const needs = own.host.talkBack?.ownWriteAccess ?? 'write access to pull requests'
  const { api } = own
  const token = own.host.variables.token
  if (!api) {
    return [{
      name: 'own comments', target: token, status: 'FAIL',
      reason: `no ${name} credentials: prherald cannot post the replies of people who are not linked (thread_replies: everyone)`,
      fix: `give prherald ${needs}`,
    }]
  }
  const check = api.commentAccess
  if (!check) {
    return [{ name: 'own comments', target: token, status: 'SKIP', reason: `not checked: ${name} does not tell a token's permissions; it needs ${needs}` }]
  }
  const owners = [...new Set(listRoutes(own.mappings).map((r) => r.owner))]
  // One token is the same for every owner: asked once.
  const asked = api.ownerAccess ? owners : owners.slice(0, 1)
  return Promise.all(asked.map(async (owner): Promise<CheckResult> => {
    const target = api.ownerAccess ? owner : token
    try {
      const { granted, says } = await check(owner)
      if (granted === undefined) return { name: 'own comments', target, status: 'SKIP', reason: `not checked: ${says}; it needs ${needs}` }
      return granted
        ? { name: 'own comments', target, status: 'OK', reason: `${says}: prherald can post the replies of people who are not linked` }
        : { name: 'own comments', target, status: 'FAIL', reason: `${says}: prherald cannot comment for people who are not linked`, fix: `give prherald ${needs} (an App's new permission must be accepted on each installation)` }
    } catch (error) {
      if (!isPrheraldError(error)) throw error
      return { name: 'own comments', target, status: 'FAIL', reason: error.message, fix: error.fix }
    }
  }))
}

/** PRHERALD_PUBLIC_URL: the OAuth callback people's browsers come back to; https, http only on loopback. */
export function oauthPublicUrlResult(env: Env): CheckResult {
  const target = 'PRHERALD_PUBLIC_URL'
  const url = env.PRHERALD_PUBLIC_URL?.trim().replace(/\/+$/, '')
  if (!url) {
    return {
      name: 'public url', target, status: 'FAIL', reason: 'not set: there is no OAuth callback, so nobody can link (only thread_replies: everyone works without it)',
      fix: `set PRHERALD_PUBLIC_URL to the https:// address that forwards /oauth/* to prherald (${WALK_THROUGH})`,
    }
  }
  const problem = publicUrlProblem(url)
  if (problem) return { name: 'public url', target, status: 'FAIL', reason: `${redactUrl(url)} ${problem}`, fix: 'set PRHERALD_PUBLIC_URL to the https:// URL people\'s browsers reach prherald at' }
  return { name: 'public url', target, status: 'OK', reason: `the OAuth callbacks are ${redactUrl(url)}/oauth/<host>/callback` }
}

/** PRHERALD_TOKEN_KEY: set and 32 bytes; never printed (the cipher's errors give the decoded length only). */
export function tokenKeyResult(env: Env): CheckResult {
  try {
    const cipher = readTokenCipher(env)
    if (!cipher) {
      return {
        name: 'token key', target: TOKEN_KEY, status: 'FAIL', reason: 'not set: people\'s tokens cannot be sealed, so nobody can link',
        fix: `generate one with \`openssl rand -base64 32\`, set ${TOKEN_KEY}, and keep it: a lost key means everyone links again`,
      }
    }
    const previous = env[PREVIOUS_TOKEN_KEY]?.trim() ? `; ${PREVIOUS_TOKEN_KEY} set: tokens under the old key are sealed again at their next use` : ''
    return { name: 'token key', target: TOKEN_KEY, status: 'OK', reason: `set, 32 bytes${previous}` }
  } catch (error) {
    if (!isPrheraldError(error)) throw error
    return { name: 'token key', target: TOKEN_KEY, status: 'FAIL', reason: error.message, fix: error.fix }
  }
}
