import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { hostOf } from '../../src/hosts/registry.ts'
import type { TalkBackApi } from '../../src/hosts/talk-back-contract.ts'
import type { Store } from '../../src/store/store.ts'
import { isPrheraldError } from '../../src/errors.ts'
import { readTokenCipher, type TokenCipher } from '../../src/talk-back/token-cipher.ts'
import { createTokenVault, type TokenVault, type TokenVaultDeps } from '../../src/talk-back/token-vault.ts'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, type Backend } from '../helpers/store-backends.ts'
import { newTokenKey } from '../helpers/talk-back-setup.ts'

/**
 * Issue 33.1 and 33.5: people's tokens in the store, on SQLite and on PostgreSQL, against a fake GitLab whose
 * refresh tokens rotate (a used one is refused). Two stores on one database are two replicas (two pools).
 */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const HOUR = 3_600_000
const REDIRECT = 'https://prherald.example.com/oauth/gitlab/callback'

describe.each(storeBackends(() => postgresDatabase))('token vault: $name', (backend) => {
  let db: Awaited<ReturnType<Backend['create']>>
  let store: Store
  let other: Store
  let host: FakeOAuthHost
  let api: TalkBackApi
  let cipher: TokenCipher
  let key: string
  const clock = { now: 1_000_000 }
  const unlinked: Array<{ slackUser: string; reason: string }> = []
  const vault = (deps: Partial<TokenVaultDeps> = {}): TokenVault => createTokenVault({
    store, cipher, apiOf: () => api, redirectUri: () => REDIRECT, now: () => clock.now, owner: 'replica-a', pollMs: 5,
    onUnlinked: (link) => { unlinked.push(link) }, ...deps,
  })
  const linkAlice = async (v = vault()) => {
    const { accessToken, refreshToken } = host.issue('alice')
    await v.link('U1', 'gitlab', { accessToken, refreshToken, expiresAt: clock.now + 2 * HOUR }, { login: 'alice', accountKey: 'alice' })
    return accessToken
  }

  beforeEach(async () => {
    clock.now = 1_000_000
    unlinked.length = 0
    db = await backend.create()
    store = await db.open(() => clock.now)
    other = await db.open(() => clock.now)
    host = await startFakeOAuthHost('gitlab')
    const talkBack = hostOf('gitlab').talkBack!
    const gitlabApi = `${host.url}/api/v4`
    api = talkBack.connect(talkBack.readOAuth({ GITLAB_OAUTH_CLIENT_ID: host.client.clientId, GITLAB_OAUTH_CLIENT_SECRET: host.client.clientSecret }, gitlabApi)!, gitlabApi, () => clock.now)
    key = newTokenKey()
    cipher = readTokenCipher({ PRHERALD_TOKEN_KEY: key })!
  })
  afterEach(async () => {
    await store.close()
    await other.close()
    await db.remove()
    await host.close()
  })

  it('keeps the tokens sealed, and hands the person\'s token back while it is good', async () => {
    const accessToken = await linkAlice()
    const row = (await store.linkedAccount('U1', 'gitlab'))!
    expect(row).toMatchObject({ login: 'alice', keyId: cipher.keyId, generation: 1, expiresAt: clock.now + 2 * HOUR })
    expect(row.sealed).not.toContain(accessToken)
    expect(await vault().tokenFor('U1', 'gitlab')).toEqual({ accessToken, login: 'alice', accountKey: 'alice', refreshExpiresAt: undefined })
    expect(host.refreshes).toBe(0)
    expect(await vault().tokenFor('U2', 'gitlab')).toBeUndefined()
    expect(await vault().linkedHosts('U1')).toEqual([{ host: 'gitlab', login: 'alice', refreshExpiresAt: undefined, opens: true }])
  })

  it('a link sealed under a key no longer configured: listed as not opening, and its use is token_sealed, not a database error', async () => {
    await linkAlice()
    const other = readTokenCipher({ PRHERALD_TOKEN_KEY: Buffer.alloc(32, 9).toString('base64') })!
    expect(await vault({ cipher: other }).linkedHosts('U1')).toEqual([{ host: 'gitlab', login: 'alice', refreshExpiresAt: undefined, opens: false }])
    const error = await vault({ cipher: other }).tokenFor('U1', 'gitlab').catch((e: unknown) => e)
    expect(isPrheraldError(error, 'token_sealed')).toBe(true)
    expect(await store.linkedKeyIds()).toEqual([{ keyId: cipher.keyId, links: 1 }])
  })

  it('refreshes before expiry, once, and keeps the rotated refresh token', async () => {
    const first = await linkAlice()
    clock.now += 2 * HOUR - 4 * 60_000 // inside the five minutes before expiry
    const fresh = (await vault().tokenFor('U1', 'gitlab'))!
    expect(fresh.accessToken).not.toBe(first)
    expect(host.refreshes).toBe(1)
    expect((await api.account(fresh.accessToken)).login).toBe('alice')
    expect(await store.linkedAccount('U1', 'gitlab')).toMatchObject({ generation: 2, expiresAt: clock.now + 2 * HOUR, refreshingBy: undefined })
    expect((await vault().tokenFor('U1', 'gitlab'))!.accessToken).toBe(fresh.accessToken)
    // The next refresh uses the rotated token: the old one would be refused, and the person unlinked.
    clock.now += 2 * HOUR
    expect(await vault().tokenFor('U1', 'gitlab')).toBeDefined()
    expect(host.refreshes).toBe(2)
    expect(unlinked).toEqual([])
  })

  it('refreshes once when two replicas need the token at the same moment', async () => {
    await linkAlice()
    clock.now += 2 * HOUR
    const a = vault()
    const b = createTokenVault({ store: other, cipher, apiOf: () => api, redirectUri: () => REDIRECT, now: () => clock.now, owner: 'replica-b', pollMs: 5 })
    const [mine, theirs] = await Promise.all([a.tokenFor('U1', 'gitlab'), b.tokenFor('U1', 'gitlab')])
    expect(host.refreshes).toBe(1)
    expect(mine!.accessToken).toBe(theirs!.accessToken)
    expect((await api.account(mine!.accessToken)).login).toBe('alice')
    expect(unlinked).toEqual([])
  })

  it('unlinks the person, and says so once, when the host refuses the refresh', async () => {
    const accessToken = await linkAlice()
    await api.revoke({ accessToken }) // revoked in GitLab's settings: its refresh token ends too
    clock.now += 3 * HOUR
    expect(await vault().tokenFor('U1', 'gitlab')).toBeUndefined()
    expect(await store.linkedAccount('U1', 'gitlab')).toBeUndefined()
    expect(unlinked).toEqual([expect.objectContaining({ slackUser: 'U1', host: 'gitlab', login: 'alice' })])
    expect(await vault().tokenFor('U1', 'gitlab')).toBeUndefined()
    expect(unlinked).toHaveLength(1)
  })

  it('keeps the link when the host refuses prherald\'s OAuth client (a rotated secret): nobody is unlinked', async () => {
    await linkAlice()
    const secret = host.client.clientSecret
    host.client.clientSecret = 'rotated-at-the-host'
    clock.now += 3 * HOUR
    const troubles: Array<string | undefined> = []
    const v = vault({ onClientOutcome: (_, trouble) => { troubles.push(trouble?.code) } })
    const error = await v.tokenFor('U1', 'gitlab').then(() => undefined, (e: unknown) => e)
    expect((error as { code?: string }).code).toBe('git_host_client')
    expect(await store.linkedAccount('U1', 'gitlab')).toBeDefined()
    expect(unlinked).toEqual([])
    // Fixed: the same link refreshes, and the trouble is over.
    host.client.clientSecret = secret
    expect((await v.tokenFor('U1', 'gitlab'))?.login).toBe('alice')
    expect(troubles).toEqual(['git_host_client', undefined])
  })

  it('re-seals a row under the current key at its next use', async () => {
    const accessToken = await linkAlice()
    const oldKeyId = cipher.keyId
    const newKey = newTokenKey()
    cipher = readTokenCipher({ PRHERALD_TOKEN_KEY: newKey, PRHERALD_TOKEN_KEY_PREVIOUS: key })!
    expect((await vault().tokenFor('U1', 'gitlab'))!.accessToken).toBe(accessToken)
    const row = (await store.linkedAccount('U1', 'gitlab'))!
    expect(row.keyId).toBe(cipher.keyId)
    expect(row.keyId).not.toBe(oldKeyId)
    // The previous key can go now: the row opens under the current one alone.
    cipher = readTokenCipher({ PRHERALD_TOKEN_KEY: newKey })!
    expect((await vault().tokenFor('U1', 'gitlab'))!.accessToken).toBe(accessToken)
  })

  it('unlinks on request: revoked at the host, and gone', async () => {
    const accessToken = await linkAlice()
    expect(await vault().unlink('U1', 'gitlab')).toBe('revoked')
    expect(host.revoked).toEqual([accessToken])
    expect(await store.linkedAccount('U1', 'gitlab')).toBeUndefined()
    expect(await vault().unlink('U1', 'gitlab')).toBe('not_linked')
  })

  it('unlinks with a live token: an expired access token is refreshed first, so the host can end the grant', async () => {
    const expired = await linkAlice()
    clock.now += 3 * HOUR
    expect(await vault().unlink('U1', 'gitlab')).toBe('revoked')
    expect(host.refreshes).toBe(1)
    expect(host.revoked).toHaveLength(1)
    expect(host.revoked).not.toContain(expired)
    expect(await store.linkedAccount('U1', 'gitlab')).toBeUndefined()
  })
})
