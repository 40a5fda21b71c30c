import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { hostOf } from '../../src/hosts/registry.ts'
import type { TalkBackApi } from '../../src/hosts/talk-back-contract.ts'
import type { Store } from '../../src/store/store.ts'
import { completeLink, type CompleteLinkDeps } from '../../src/talk-back/complete-link.ts'
import { createOAuthFlows, type OAuthFlows } from '../../src/talk-back/oauth-flows.ts'
import { readTokenCipher } from '../../src/talk-back/token-cipher.ts'
import { createTokenVault, type TokenVault } from '../../src/talk-back/token-vault.ts'
import { startFakeOAuthHost, type FakeHostKind, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, type Backend } from '../helpers/store-backends.ts'
import { newTokenKey } from '../helpers/talk-back-setup.ts'

/**
 * Issue 33.1 and 33.5, "Whose account it is": the state is single-use, ten minutes, tied to the browser's
 * cookie; the account the host names must be the one `users:` maps to the Slack user who asked.
 */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const REDIRECT = 'https://prherald.example.com/oauth/callback'

describe.each(storeBackends(() => postgresDatabase))('OAuth link: $name', (backend) => {
  let db: Awaited<ReturnType<Backend['create']>>
  let store: Store
  let other: Store
  const hosts: FakeOAuthHost[] = []
  const clock = { now: 5_000_000 }
  let flows: OAuthFlows
  let vault: TokenVault
  const apis = new Map<string, TalkBackApi>()
  // users: maps U1 to alice on GitHub and GitLab, and to her account id on Bitbucket.
  const users: Record<string, Record<string, string[]>> = { U1: { github: ['Alice'], gitlab: ['alice'], bitbucket: ['557058:alice'] } }
  const deps = (): CompleteLinkDeps => ({
    flows, vault, hostOf, apiOf: (id) => apis.get(id), redirectUri: () => REDIRECT, keysOf: async (u, h) => users[u]?.[h] ?? [],
  })

  async function startHost(kind: FakeHostKind) {
    const host = await startFakeOAuthHost(kind, { accounts: [{ login: 'alice', accountId: '557058:alice' }, { login: 'mallory', accountId: '557058:mallory' }] })
    hosts.push(host)
    const talkBack = hostOf(kind).talkBack!
    const env = { [talkBack.variables.clientId]: host.client.clientId, [talkBack.variables.clientSecret]: host.client.clientSecret, GITHUB_WEB_URL: host.url, BITBUCKET_WEB_URL: host.url }
    apis.set(kind, talkBack.connect(talkBack.readOAuth(env, host.apiUrl)!, host.apiUrl, () => clock.now))
    return host
  }
  /** /prherald link makes the flow, the person's browser opens /start: the cookie and the challenge. */
  async function open(slackUser: string, kind: FakeHostKind) {
    const { state } = await flows.begin(slackUser, kind)
    const started = await flows.start(state, kind)
    if (started.outcome !== 'started') throw new Error(`not started: ${started.outcome}`)
    return { state, ...started }
  }
  /** What the person's browser does: /start's redirect to the host, the host's redirect back with code and state. */
  async function authorize(kind: FakeHostKind, started: { state: string; codeChallenge: string }) {
    const page = apis.get(kind)!.authorizeUrl({ state: started.state, redirectUri: REDIRECT, codeChallenge: started.codeChallenge })
    const back = new URL((await fetch(page, { redirect: 'manual' })).headers.get('location')!)
    return { state: back.searchParams.get('state')!, code: back.searchParams.get('code') ?? undefined }
  }

  beforeEach(async () => {
    clock.now = 5_000_000
    db = await backend.create()
    store = await db.open(() => clock.now)
    other = await db.open(() => clock.now)
    flows = createOAuthFlows({ store, now: () => clock.now })
    const cipher = readTokenCipher({ PRHERALD_TOKEN_KEY: newTokenKey() })!
    vault = createTokenVault({ store, cipher, apiOf: (id) => apis.get(id), redirectUri: () => REDIRECT, now: () => clock.now, owner: 'a' })
  })
  afterEach(async () => {
    await store.close()
    await other.close()
    await db.remove()
    await Promise.all(hosts.splice(0).map((h) => h.close()))
    apis.clear()
  })

  it.each(['github', 'gitlab', 'bitbucket'] as const)('links %s for the browser that started, once', async (kind) => {
    await startHost(kind)
    const started = await open('U1', kind)
    const callback = await authorize(kind, started)
    expect(await completeLink(deps(), { ...callback, cookie: started.cookie })).toEqual({ outcome: 'linked', host: kind, slackUser: 'U1', login: 'alice' })
    expect((await vault.tokenFor('U1', kind))!.login).toBe('alice')
    // The same state again (a reload, a replay): used.
    expect(await completeLink(deps(), { ...callback, cookie: started.cookie })).toMatchObject({ outcome: 'refused', reason: 'unknown' })
  })

  it('refuses a state presented by another browser, and leaves it for the one that started', async () => {
    await startHost('github')
    const started = await open('U1', 'github')
    const callback = await authorize('github', started)
    expect(await completeLink(deps(), { ...callback, cookie: 'someone-else' })).toMatchObject({ outcome: 'refused', reason: 'wrong_browser' })
    expect(await completeLink(deps(), { ...callback, cookie: undefined })).toMatchObject({ outcome: 'refused', reason: 'wrong_browser' })
    expect(await completeLink(deps(), { ...callback, cookie: started.cookie })).toMatchObject({ outcome: 'linked' })
  })

  it('binds a flow to the first browser that opens it; another, the wrong host\'s route, or no browser at all gets nothing', async () => {
    await startHost('github')
    const { state } = await flows.begin('U1', 'github')
    expect(await flows.finish(state, undefined)).toEqual({ outcome: 'wrong_browser' })
    expect(await flows.start(state, 'gitlab')).toEqual({ outcome: 'unknown' })
    const first = await flows.start(state, 'github')
    expect(first.outcome).toBe('started')
    expect(await flows.start(state, 'github')).toEqual({ outcome: 'wrong_browser' })
    clock.now += 10 * 60_000
    const late = await flows.begin('U1', 'github')
    clock.now += 10 * 60_000
    expect(await flows.start(late.state, 'github')).toEqual({ outcome: 'expired' })
  })

  it('refuses an unknown state and one older than ten minutes', async () => {
    await startHost('gitlab')
    expect(await completeLink(deps(), { state: 'made-up', code: 'x', cookie: 'y' })).toMatchObject({ outcome: 'refused', reason: 'unknown' })
    const started = await open('U1', 'gitlab')
    const callback = await authorize('gitlab', started)
    clock.now += 10 * 60_000
    expect(await completeLink(deps(), { ...callback, cookie: started.cookie })).toMatchObject({ outcome: 'refused', reason: 'expired' })
    expect(await vault.tokenFor('U1', 'gitlab')).toBeUndefined()
  })

  it('gives a state to one of two replicas\' callbacks', async () => {
    await startHost('github')
    const started = await open('U1', 'github')
    const otherFlows = createOAuthFlows({ store: other, now: () => clock.now })
    const outcomes = await Promise.all([flows.finish(started.state, started.cookie), otherFlows.finish(started.state, started.cookie)])
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['taken', 'unknown'])
  })

  it.each(['github', 'gitlab', 'bitbucket'] as const)('links nothing on %s when someone else authorised a forwarded link, and ends their token', async (kind) => {
    const host = await startHost(kind)
    const started = await open('U1', kind)
    host.authorizer = 'mallory'
    const result = await completeLink(deps(), { ...(await authorize(kind, started)), cookie: started.cookie })
    expect(result).toMatchObject({ outcome: 'refused', reason: 'wrong_account' })
    expect(result.outcome === 'refused' && result.message).toContain('users:')
    expect(await vault.tokenFor('U1', kind)).toBeUndefined()
    if (kind !== 'bitbucket') expect(host.revoked).toHaveLength(1)
  })

  it('finds the links whose refresh token ends by a time, for the relink sweep', async () => {
    const sealed = { accountKey: 'alice', keyId: 'k', sealed: 's', expiresAt: undefined }
    await store.saveLinkedAccount({ ...sealed, slackUser: 'U1', host: 'github', login: 'alice', refreshExpiresAt: clock.now + 1000 })
    await store.saveLinkedAccount({ ...sealed, slackUser: 'U2', host: 'github', login: 'bob', refreshExpiresAt: clock.now + 5000 })
    await store.saveLinkedAccount({ ...sealed, slackUser: 'U3', host: 'gitlab', login: 'carol', refreshExpiresAt: undefined })
    expect((await store.linkedAccountsEndingBy(clock.now + 2000)).map((r) => r.login)).toEqual(['alice'])
    expect((await other.linkedAccountsEndingBy(clock.now + 9000)).map((r) => r.login)).toEqual(['alice', 'bob'])
  })

  it('says so when the person declined at the host', async () => {
    await startHost('bitbucket')
    const started = await open('U1', 'bitbucket')
    expect(await completeLink(deps(), { state: started.state, code: undefined, cookie: started.cookie, error: 'access_denied' }))
      .toMatchObject({ outcome: 'refused', reason: 'denied', message: 'Bitbucket did not authorise prherald (access_denied). Nothing was linked.' })
  })
})
