import type { ConnectedHost } from '../config/connect-hosts.ts'
import { isPrheraldError } from '../errors.ts'
import type { OAuthClient, TalkBack } from '../hosts/talk-back-contract.ts'
import { clientRefused } from '../hosts/talk-back-http.ts'
import type { CheckResult } from './check-result.ts'

/** A refresh token no host ever issued: only its refusal is asked for. */
const MADE_UP_REFRESH_TOKEN = 'prherald-doctor-made-up-refresh-token'

/**
 * Whether the host's token endpoint takes the OAuth client id and secret as set: a refresh grant for a made-up
 * refresh token. The host checks the client before the grant (RFC 6749 5.2: `invalid_client` is "Client
 * authentication failed"), so the grant's refusal means the client was taken: GitHub's `bad_refresh_token`
 * (what GitHub answers a refresh it will not honour, community discussion 24745 "Bad refresh token when refreshing
 * an user-to-server token"), `invalid_grant` from GitLab's Doorkeeper (RFC 6749 5.2: "refresh token is invalid,
 * expired, revoked"; talk-back-http.ts GRANT_OVER), and Bitbucket's `invalid_request` "Invalid refresh_token" (an
 * Atlassian community answer, "How do I refresh a token"; bitbucket/talk-back.ts). The client refused (`invalid_client`; GitHub's `incorrect_client_credentials`, "The client_id and/or
 * client_secret passed are incorrect"; Bitbucket's `unauthorized_client`, "Invalid OAuth client credentials") is
 * what the server meets at its first refresh (`talk_back_oauth` in /readyz): FAIL.
 * A 5xx or an answer that is not the host's says nothing about the client: WARN.
 */
export async function oauthClientTakenResult(own: ConnectedHost, facet: TalkBack, client: OAuthClient, redirectUri: string): Promise<CheckResult> {
  const { name } = own.host.words
  const { clientId, clientSecret } = facet.variables
  const base = { name: 'oauth client taken', target: clientId }
  try {
    await facet.connect(client, own.apiUrl).refresh(MADE_UP_REFRESH_TOKEN, redirectUri)
    return { ...base, status: 'WARN', reason: `${name}'s token endpoint gave tokens for a refresh token it never issued: it is not ${name}'s`, fix: `check ${facet.variables.webUrl ?? 'the host\'s web address'}` }
  } catch (error) {
    if (!isPrheraldError(error)) throw error
    if (error.code === 'git_host_auth') {
      return { ...base, status: 'OK', reason: `${name}'s token endpoint took ${clientId} and ${clientSecret} (it refused only a made-up refresh token)` }
    }
    if (clientRefused(error)) {
      return {
        ...base, status: 'FAIL', reason: `${error.message}: linked people's tokens cannot be refreshed, nor new links made`,
        fix: `set ${clientId} and ${clientSecret} to the client id and secret of ${name}'s OAuth application (a secret rotated at ${name} must be set here too), then restart prherald (docs/talk-back.md#the-variables)`,
      }
    }
    return { ...base, status: 'WARN', reason: `not checked: ${error.message}`, ...(error.fix ? { fix: error.fix } : {}) }
  }
}
