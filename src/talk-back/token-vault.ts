import { isPrheraldError, PrheraldError } from '../errors.ts'
import type { HostTokens, TalkBackApi } from '../hosts/talk-back-contract.ts'
import type { LinkedAccountRecord, TalkBackStore } from '../store/talk-back-store.ts'
import { PREVIOUS_TOKEN_KEY, type TokenCipher } from './token-cipher.ts'

/**
 * People's linked host tokens (docs/talk-back.md): sealed at rest, refreshed before they expire, and refreshed
 * once however many replicas need the token at the same moment. Every host rotates refresh tokens (one used
 * is ended, with its access token), so two refreshes of the same row would leave the loser's token refused:
 * the row is claimed first, the others wait for its next generation. A refresh the host refuses unlinks
 * the person, who is told once (`onUnlinked`). No token leaves this module except to the caller who asked.
 */
export interface TokenVaultDeps {
  store: TalkBackStore
  cipher: TokenCipher
  /** The host's talk-back API; undefined when linking is off on that host. */
  apiOf(host: string): TalkBackApi | undefined
  /** The OAuth callback URL of the host (GitLab's refresh names it). */
  redirectUri(host: string): string
  now: () => number
  /** This replica, as the owner of a refresh claim. */
  owner: string
  sleep?: (ms: number) => Promise<void>
  /** A claim's length: a replica that died mid-refresh holds the row no longer. */
  claimMs?: number
  pollMs?: number
  /** The host refused the refresh and the link is gone: tell the person once, at once. */
  onUnlinked?(link: { slackUser: string; host: string; login: string; reason: string }): Promise<void> | void
}

export interface LinkedToken {
  accessToken: string
  login: string
  accountKey: string
  /** When the person must link again (GitHub's six months), for the relink notice. */
  refreshExpiresAt: number | undefined
}

export type UnlinkOutcome = 'revoked' | 'unsupported' | 'revoke_failed' | 'not_linked'

export interface TokenVault {
  link(slackUser: string, host: string, tokens: HostTokens, account: { login: string; accountKey: string }): Promise<void>
  /** The person's usable token (refreshed first when due); undefined when not linked, or unlinked just now. */
  tokenFor(slackUser: string, host: string): Promise<LinkedToken | undefined>
  /** Revokes at the host where it can, and forgets the tokens whatever the host answered. */
  unlink(slackUser: string, host: string): Promise<UnlinkOutcome>
  /** `opens`: false when the configured keys cannot open the link's tokens (it cannot be used until linked again). */
  linkedHosts(slackUser: string): Promise<Array<{ host: string; login: string; refreshExpiresAt: number | undefined; opens: boolean }>>
}

interface Sealed { a: string; r?: string | undefined }

const boundTo = (slackUser: string, host: string) => `linked_accounts\n${host}\n${slackUser}`

export function createTokenVault(deps: TokenVaultDeps): TokenVault {
  const { store, cipher, now, owner } = deps
  // Refresh a token this long before it expires: a call made with it must not meet its end.
  const margin = 5 * 60_000
  const claimMs = deps.claimMs ?? 30_000
  const pollMs = deps.pollMs ?? 100
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))

  const seal = (row: Pick<LinkedAccountRecord, 'slackUser' | 'host'>, tokens: Sealed) => cipher.seal(JSON.stringify(tokens), boundTo(row.slackUser, row.host))
  const open = (row: LinkedAccountRecord): Sealed => {
    try {
      return JSON.parse(cipher.open(row.keyId, row.sealed, boundTo(row.slackUser, row.host))) as Sealed
    } catch (cause) {
      // Another key sealed it (PRHERALD_TOKEN_KEY changed without _PREVIOUS), or the row was altered: this link cannot be used here.
      throw new PrheraldError('token_sealed', `${row.slackUser}'s ${row.host} link does not open under the configured token keys`, {
        cause, fix: `set ${PREVIOUS_TOKEN_KEY} to the key it was sealed with, or have the person link again (/prherald link ${row.host})`,
      })
    }
  }
  const linked = (row: LinkedAccountRecord, accessToken: string, refreshExpiresAt = row.refreshExpiresAt): LinkedToken =>
    ({ accessToken, login: row.login, accountKey: row.accountKey, refreshExpiresAt })
  const dueAt = (row: LinkedAccountRecord) => row.expiresAt !== undefined && row.expiresAt - margin <= now()
  const apiOf = (host: string) => {
    const api = deps.apiOf(host)
    if (!api) throw new PrheraldError('config_invalid', `linking is off on ${host}: its OAuth client is not configured`, { fix: 'set the host\'s *_OAUTH_CLIENT_ID and *_OAUTH_CLIENT_SECRET (docs/talk-back.md)' })
    return api
  }

  async function refreshClaimed(row: LinkedAccountRecord, tokens: Sealed & { r: string }): Promise<LinkedToken | undefined> {
    let fresh: HostTokens
    try {
      fresh = await apiOf(row.host).refresh(tokens.r, deps.redirectUri(row.host))
    } catch (error) {
      if (isPrheraldError(error, 'git_host_auth')) {
        // Revoked, expired or already used: no later attempt can work. Only this generation goes (a relink meanwhile stays).
        if (await store.deleteLinkedAccount(row.slackUser, row.host, row.generation)) {
          await deps.onUnlinked?.({ slackUser: row.slackUser, host: row.host, login: row.login, reason: error.hostSays ?? error.message })
        }
        return undefined
      }
      await store.releaseTokenRefresh(row.slackUser, row.host, owner)
      throw error
    }
    // Rotation: the answer's refresh token replaces the old one, which is ended now.
    const sealed = seal(row, { a: fresh.accessToken, r: fresh.refreshToken ?? tokens.r })
    await store.completeTokenRefresh(row.slackUser, row.host, { generation: row.generation, owner }, { ...sealed, expiresAt: fresh.expiresAt, refreshExpiresAt: fresh.refreshExpiresAt })
    // Stored or not (a relink replaced the row meanwhile), this token is the person's and works for this call.
    return linked(row, fresh.accessToken, fresh.refreshExpiresAt ?? row.refreshExpiresAt)
  }

  return {
    async link(slackUser, host, tokens, account) {
      const sealed = seal({ slackUser, host }, { a: tokens.accessToken, r: tokens.refreshToken })
      await store.saveLinkedAccount({ slackUser, host, login: account.login, accountKey: account.accountKey, ...sealed, expiresAt: tokens.expiresAt, refreshExpiresAt: tokens.refreshExpiresAt })
    },

    async tokenFor(slackUser, host) {
      // Waiting for another replica's refresh: as long as its claim can last, then the claim is free again.
      for (let waits = 0; waits <= Math.ceil(claimMs / pollMs) + 1; waits++) {
        const row = await store.linkedAccount(slackUser, host)
        if (!row) return undefined
        const tokens = open(row)
        if (!dueAt(row) || tokens.r === undefined) {
          if (row.keyId !== cipher.keyId) await store.resealLinkedAccount(slackUser, host, { generation: row.generation, keyId: row.keyId }, seal(row, tokens))
          return linked(row, tokens.a)
        }
        const at = now()
        if (await store.claimTokenRefresh(slackUser, host, row.generation, owner, at, at + claimMs)) return refreshClaimed(row, { ...tokens, r: tokens.r })
        await sleep(pollMs)
      }
      throw new PrheraldError('git_host', `another replica's refresh of ${slackUser}'s ${host} token did not finish`, { fix: 'retry; if it persists, check that the replicas reach the host' })
    },

    async unlink(slackUser, host) {
      const row = await store.linkedAccount(slackUser, host)
      if (!row) return 'not_linked'
      let outcome: UnlinkOutcome
      try {
        const tokens = open(row)
        // Ending a grant takes a live access token (GitHub: "provide a valid OAuth access_token"): an expired one is
        // refreshed first. Not stored: the row goes below whatever the host answers.
        const accessToken = dueAt(row) && tokens.r !== undefined ? (await apiOf(host).refresh(tokens.r, deps.redirectUri(host))).accessToken : tokens.a
        outcome = await apiOf(host).revoke({ accessToken, refreshToken: tokens.r })
      } catch {
        // The copy goes anyway: the person asked for it. The answer says the host may still hold a grant.
        outcome = 'revoke_failed'
      }
      await store.deleteLinkedAccount(slackUser, host)
      return outcome
    },

    async linkedHosts(slackUser) {
      return (await store.linkedAccountsOf(slackUser)).map((r) => ({ host: r.host, login: r.login, refreshExpiresAt: r.refreshExpiresAt, opens: cipher.opens(r.keyId) }))
    },
  }
}
