import { splitRepository } from '../../machines/pull-request-event.ts'
import type { ConnectedHost, HostSet } from '../config/connect-hosts.ts'
import type { Settings } from '../config/settings.ts'
import { layTalkBack, talkBackUsed } from '../config/talk-back-settings.ts'
import { normalisePeopleMap } from '../config/people-map.ts'
import { PrheraldError } from '../errors.ts'
import { hostOf } from '../hosts/registry.ts'
import type { TalkBackApi } from '../hosts/talk-back-contract.ts'
import { hostMappings, listHostRoutes, resolveRoute } from '../routing/resolve-route.ts'
import { errorFields, type Logger } from '../log/logger.ts'
import type { DirectMessageStore, PeopleCache } from '../store/store.ts'
import type { TalkBackStore } from '../store/talk-back-store.ts'
import type { CompleteLinkDeps } from './complete-link.ts'
import { createOAuthFlows } from './oauth-flows.ts'
import type { TalkBackService } from './talk-back-service.ts'
import type { TokenCipher } from './token-cipher.ts'
import { createTalkBackNotices, type TalkBackNotices } from './talk-back-notices.ts'
import { createTokenVault } from './token-vault.ts'

export interface TalkBackDeps {
  settings: Pick<Settings, 'talkBack' | 'publicUrl' | 'lookupUsersByEmail'>
  /** Every configured host, each with its OAuth client when its variables are set. */
  hosts: HostSet
  /** PRHERALD_TOKEN_KEY's cipher; undefined: nobody can link (tokens are never stored in the clear). */
  cipher: TokenCipher | undefined
  store: TalkBackStore & PeopleCache & DirectMessageStore
  /** This replica, as the owner of a refresh claim (src/mailbox/lease-keeper.ts replicaId). */
  owner: string
  now: () => number
  logger: Logger
  /** Wakes the direct-message sender: the notices (talk-back-notices.ts) are due at once. */
  kickDirectMessages?: () => void
}

/** The service, plus what only the OAuth routes need: the authorize page and the callback's decision. */
export interface TalkBack extends TalkBackService {
  /** The hosts whose people can link here (an OAuth client, a token key and a public URL). */
  linkableHosts(): ConnectedHost[]
  authorizeUrl(host: string, flow: { state: string; codeChallenge: string }): string | undefined
  callback: CompleteLinkDeps
  notices: TalkBackNotices
}

const noKey = () => {
  throw new PrheraldError('config_invalid', 'PRHERALD_TOKEN_KEY is not set: linked accounts can be neither sealed nor opened', { fix: 'set PRHERALD_TOKEN_KEY (docs/talk-back.md#keys)' })
}
const NO_KEY: TokenCipher = { keyId: '-', opens: () => false, seal: noKey, open: noKey }

/** Whether `slack.talk_back` turns anything on, globally or for any mapping entry: talk-back is built only then. */
export function talkBackWanted(settings: Pick<Settings, 'talkBack' | 'hosts'>): boolean {
  const routes = listHostRoutes(hostMappings(settings.hosts))
  return talkBackUsed([settings.talkBack, ...routes.map((route) => layTalkBack(settings.talkBack, ...route.talkBack))])
}

/**
 * Talk-back as one value (docs/talk-back.md), built once at the composition root when `slack.talk_back` turns
 * anything on: the vault and the flows over the store, each host's talk-back API (connected by connectHosts), the
 * redirect URIs under PRHERALD_PUBLIC_URL (`/oauth/<host>/callback`), and the people maps that say whose
 * account a Slack user may link.
 */
export function createTalkBack(deps: TalkBackDeps): TalkBack {
  const { hosts, store, now } = deps
  const publicUrl = deps.settings.publicUrl
  // Each host's talk-back API was connected once, with its other clients (connectHosts).
  const apis = new Map<string, TalkBackApi>([...hosts.values()].flatMap((own) => (own.talkBack ? [[own.id, own.talkBack] as const] : [])))
  const apiOf = (host: string) => apis.get(host)
  const redirectUri = (host: string) => `${publicUrl ?? ''}/oauth/${encodeURIComponent(host)}/callback`
  const linkable = (host: string) => publicUrl !== undefined && deps.cipher !== undefined && apis.has(host)
  const flows = createOAuthFlows({ store, now })
  const cipher = deps.cipher
  // A link stored for a host no longer configured (its row outlives a config change) is still told of in that host's words.
  const hostOfId = (id: string) => hosts.get(id)?.host ?? hostOf(id)
  const notices = createTalkBackNotices({ store, hostOf: hostOfId, now, kick: deps.kickDirectMessages })
  // A notice that cannot be queued is logged; the link's own outcome (used, or gone) stands.
  const told = (what: string, slackUser: string, host: string) => (error: unknown) =>
    deps.logger.warn(`talk-back ${what} notice not queued`, { slack_user: slackUser, host, ...errorFields(error) })
  const vault = createTokenVault({
    store, apiOf, redirectUri, now, owner: deps.owner,
    onUnlinked: (link) => notices.unlinked(link).catch(told('unlinked', link.slackUser, link.host)),
    // Without a key nobody can link (linkable is false) and nothing is sealed; a row from an earlier key does not open.
    cipher: cipher ?? NO_KEY,
  })

  /** The `users:` keys that map to this Slack user on this host, and what the email look-up matched. */
  async function keysOf(slackUser: string, host: string): Promise<string[]> {
    const own = hosts.get(host)
    if (!own) return []
    const mapped = Object.entries(own.users).filter(([, id]) => id === slackUser).map(([key]) => key)
    const found = deps.settings.lookupUsersByEmail
      ? (await store.loginsOfSlackUser(slackUser)).filter((f) => f.provider === host).map((f) => f.login)
      : []
    return Object.keys(normalisePeopleMap(own.host.people.caseInsensitive, Object.fromEntries([...mapped, ...found].map((k) => [k, slackUser]))))
  }

  return {
    settingsFor(host, repository) {
      const { owner, repo } = splitRepository(repository)
      const own = hosts.get(host)
      const route = own && owner !== '' ? resolveRoute(own.mappings, owner, repo) : undefined
      return layTalkBack(deps.settings.talkBack, ...(route?.talkBack ?? []))
    },
    linkable,
    async linkUrl(slackUser, host) {
      if (!linkable(host)) return undefined
      const { state } = await flows.begin(slackUser, host)
      return `${publicUrl}/oauth/${encodeURIComponent(host)}/start?state=${encodeURIComponent(state)}`
    },
    async tokenFor(slackUser, host) {
      if (!apis.has(host) || !cipher) return undefined
      const token = await vault.tokenFor(slackUser, host)
      // The relink notice is checked here, at each use: a link nobody uses needs no reminder.
      if (token) await notices.relinkDue(slackUser, host, token).catch(told('relink', slackUser, host))
      return token
    },
    as: (host, accessToken) => apiOf(host)?.as(accessToken),
    mention: (host, key) => hosts.get(host)?.host.talkBack?.mention(key) ?? `@${key}`,
    vault,
    flows,
    linkableHosts: () => [...hosts.values()].filter((own) => linkable(own.id)),
    authorizeUrl: (host, flow) => apiOf(host)?.authorizeUrl({ ...flow, redirectUri: redirectUri(host) }),
    callback: { flows, vault, hostOf: hostOfId, apiOf, redirectUri, keysOf },
    notices,
  }
}
