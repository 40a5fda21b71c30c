import type { Param, StoreDriver } from './store-driver.ts'
import { talkBackQueries as q } from './talk-back-queries.ts'

/** A person's linked account as stored: the tokens only sealed (src/talk-back/token-cipher.ts opens them). */
export interface LinkedAccountRecord {
  slackUser: string
  host: string
  login: string
  accountKey: string
  keyId: string
  sealed: string
  expiresAt: number | undefined
  refreshExpiresAt: number | undefined
  generation: number
  refreshingBy: string | undefined
  refreshingUntil: number
  linkedAt: number
  updatedAt: number
}

export type NewLinkedAccount = Pick<LinkedAccountRecord, 'slackUser' | 'host' | 'login' | 'accountKey' | 'keyId' | 'sealed' | 'expiresAt' | 'refreshExpiresAt'>

export interface OAuthStateRecord {
  stateHash: string
  host: string
  slackUser: string
  cookieHash: string
  codeVerifier: string
  expiresAt: number
  createdAt: number
}

export type TakenState = { outcome: 'taken'; flow: OAuthStateRecord } | { outcome: 'unknown' | 'expired' | 'wrong_browser' }

/** Talk-back's part of the store (docs/talk-back.md); the same statements on SQLite and PostgreSQL. */
export interface TalkBackStore {
  /** Links (or relinks: a new generation, any claim dropped). */
  saveLinkedAccount(account: NewLinkedAccount): Promise<void>
  linkedAccount(slackUser: string, host: string): Promise<LinkedAccountRecord | undefined>
  linkedAccountsOf(slackUser: string): Promise<LinkedAccountRecord[]>
  /** How many links each key sealed (its id), for the start's check that the configured keys open them all. */
  linkedKeyIds(): Promise<Array<{ keyId: string; links: number }>>
  /** Links whose refresh token ends by `by` (GitHub's six months): the relink notice's sweep. */
  linkedAccountsEndingBy(by: number): Promise<LinkedAccountRecord[]>
  /** Deletes the link; with `generation`, only that one (a relink since then stays). True when a row went. */
  deleteLinkedAccount(slackUser: string, host: string, generation?: number): Promise<boolean>
  /** Claims the refresh of `generation` for `owner` until `until`; false when another holds it or the row moved on. */
  claimTokenRefresh(slackUser: string, host: string, generation: number, owner: string, now: number, until: number): Promise<boolean>
  /** Stores the refreshed tokens, a generation on; false when the claim was lost (its time ran out and another took it). */
  completeTokenRefresh(slackUser: string, host: string, claim: { generation: number; owner: string }, tokens: Pick<LinkedAccountRecord, 'keyId' | 'sealed' | 'expiresAt' | 'refreshExpiresAt'>): Promise<boolean>
  releaseTokenRefresh(slackUser: string, host: string, owner: string): Promise<void>
  /** The same tokens sealed under the current key, unless the row changed meanwhile. */
  resealLinkedAccount(slackUser: string, host: string, from: { generation: number; keyId: string }, to: { keyId: string; sealed: string }): Promise<boolean>
  /** Records a flow (and drops the expired ones). */
  saveOAuthState(state: OAuthStateRecord): Promise<void>
  /**
   * Binds a flow made without a browser (cookie_hash '') to the first browser that opens it, at `host`'s
   * /start; another browser, or the same state on another host's route, gets no flow.
   */
  bindOAuthState(stateHash: string, host: string, cookieHash: string, now: number): Promise<TakenState>
  /** Takes the flow once, for the browser that started it; a wrong browser does not use it up. */
  takeOAuthState(stateHash: string, cookieHash: string, now: number): Promise<TakenState>
}

interface LinkedRow {
  slack_user: string
  host: string
  login: string
  account_key: string
  key_id: string
  sealed: string
  expires_at: number | string | null
  refresh_expires_at: number | string | null
  generation: number | string
  refreshing_by: string | null
  refreshing_until: number | string
  linked_at: number | string
  updated_at: number | string
}

interface StateRow {
  state_hash: string
  host: string
  slack_user: string
  cookie_hash: string
  code_verifier: string
  expires_at: number | string
  created_at: number | string
}

const maybe = (value: number | string | null) => (value === null ? undefined : Number(value))

const linkedFromRow = (r: LinkedRow): LinkedAccountRecord => ({
  slackUser: r.slack_user, host: r.host, login: r.login, accountKey: r.account_key, keyId: r.key_id, sealed: r.sealed,
  expiresAt: maybe(r.expires_at), refreshExpiresAt: maybe(r.refresh_expires_at), generation: Number(r.generation),
  refreshingBy: r.refreshing_by ?? undefined, refreshingUntil: Number(r.refreshing_until), linkedAt: Number(r.linked_at), updatedAt: Number(r.updated_at),
})

const stateFromRow = (r: StateRow): OAuthStateRecord => ({
  stateHash: r.state_hash, host: r.host, slackUser: r.slack_user, cookieHash: r.cookie_hash, codeVerifier: r.code_verifier,
  expiresAt: Number(r.expires_at), createdAt: Number(r.created_at),
})

export function createTalkBackStore(driver: StoreDriver, now: () => number): TalkBackStore {
  const write = async (s: (typeof q)[keyof typeof q], params: readonly Param[]) => (await driver.write([[s, params]]))[0] ?? 0
  const first = async <Row>(s: (typeof q)[keyof typeof q], params: readonly Param[]) => (await driver.read<Row>(s, params))[0]
  return {
    async saveLinkedAccount(a) {
      const at = now()
      await write(q.saveLinkedAccount, [a.slackUser, a.host, a.login, a.accountKey, a.keyId, a.sealed, a.expiresAt ?? null, a.refreshExpiresAt ?? null, at, at])
    },
    async linkedAccount(slackUser, host) {
      const row = await first<LinkedRow>(q.linkedAccount, [slackUser, host])
      return row ? linkedFromRow(row) : undefined
    },
    linkedAccountsOf: async (slackUser) => (await driver.read<LinkedRow>(q.linkedAccountsOf, [slackUser])).map(linkedFromRow),
    linkedKeyIds: async () => (await driver.read<{ key_id: string; links: number | string }>(q.linkedKeyIds, [])).map((r) => ({ keyId: r.key_id, links: Number(r.links) })),
    linkedAccountsEndingBy: async (by) => (await driver.read<LinkedRow>(q.refreshEndingBy, [by])).map(linkedFromRow),
    async deleteLinkedAccount(slackUser, host, generation) {
      const n = generation === undefined ? await write(q.deleteLinkedAccount, [slackUser, host]) : await write(q.deleteLinkedGeneration, [slackUser, host, generation])
      return n > 0
    },
    async claimTokenRefresh(slackUser, host, generation, owner, at, until) {
      return await write(q.claimRefresh, [owner, until, slackUser, host, generation, at]) === 1
    },
    async completeTokenRefresh(slackUser, host, claim, t) {
      return await write(q.completeRefresh, [t.keyId, t.sealed, t.expiresAt ?? null, t.refreshExpiresAt ?? null, now(), slackUser, host, claim.generation, claim.owner]) === 1
    },
    async releaseTokenRefresh(slackUser, host, owner) {
      await write(q.releaseRefresh, [slackUser, host, owner])
    },
    async resealLinkedAccount(slackUser, host, from, to) {
      return await write(q.reseal, [to.keyId, to.sealed, now(), slackUser, host, from.generation, from.keyId]) === 1
    },
    async saveOAuthState(s) {
      await driver.write([
        [q.deleteExpiredStates, [s.createdAt]],
        [q.saveState, [s.stateHash, s.host, s.slackUser, s.cookieHash, s.codeVerifier, s.expiresAt, s.createdAt]],
      ])
    },
    async bindOAuthState(stateHash, host, cookieHash, at) {
      const row = await first<StateRow>(q.findState, [stateHash])
      if (!row || row.host !== host) return { outcome: 'unknown' }
      const flow = stateFromRow(row)
      if (flow.expiresAt <= at) return { outcome: 'expired' }
      // The UPDATE decides: of two browsers opening the link at once, one binds it.
      return await write(q.bindState, [cookieHash, stateHash, host, at]) === 1 ? { outcome: 'taken', flow: { ...flow, cookieHash } } : { outcome: 'wrong_browser' }
    },
    async takeOAuthState(stateHash, cookieHash, at) {
      const row = await first<StateRow>(q.findState, [stateHash])
      if (!row) return { outcome: 'unknown' }
      const flow = stateFromRow(row)
      if (flow.expiresAt <= at) {
        await write(q.dropState, [stateHash])
        return { outcome: 'expired' }
      }
      // '' is a flow no browser has opened yet: nobody can finish it.
      if (flow.cookieHash === '' || flow.cookieHash !== cookieHash) return { outcome: 'wrong_browser' }
      // The DELETE decides: of two callbacks racing with the same state, one deletes the row.
      return await write(q.takeState, [stateHash, cookieHash, at]) === 1 ? { outcome: 'taken', flow } : { outcome: 'unknown' }
    },
  }
}
