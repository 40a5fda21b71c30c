import type { Provider } from '../../machines/pull-request-event.ts'
import type { TalkBackSettings } from '../config/talk-back-settings.ts'
import type { PersonApi } from '../hosts/talk-back-contract.ts'
import type { OAuthFlows } from './oauth-flows.ts'
import type { LinkedToken, TokenVault } from './token-vault.ts'

/**
 * Talk-back as the rest of the server sees it (docs/talk-back.md), built once at the composition root
 * (`createTalkBack`) when `slack.talk_back` turns anything on; absent otherwise, and nothing of it runs.
 * The Slack side (the inbound pipeline's handlers, the batch runner, the outbox) takes it as a dependency.
 */
export interface TalkBackService {
  /** `slack.talk_back` for one repository of one host: the global tier, then the owner's `"*"`, then the repository's. */
  settingsFor(host: Provider, repository: string): TalkBackSettings
  /** Whether people can link on this host: its OAuth client (GITHUB_OAUTH_CLIENT_ID …) and PRHERALD_TOKEN_KEY are set. */
  linkable(host: string): boolean
  /** `${PRHERALD_PUBLIC_URL}/oauth/<host>/start?…` for this Slack user; undefined without a public URL or an OAuth client. */
  linkUrl(slackUser: string, host: string): Promise<string | undefined>
  /** The person's usable token on the host (refreshed first when due), or undefined when they are not linked there. */
  tokenFor(slackUser: string, host: string): Promise<LinkedToken | undefined>
  /** The host's API as the person whose token this is. */
  as(host: string, accessToken: string): PersonApi | undefined
  /** How a comment on this host mentions the account `users:` keys with `key` (`@alice`; Bitbucket `@{account id}`). */
  mention(host: string, key: string): string
  vault: TokenVault
  flows: OAuthFlows
}
