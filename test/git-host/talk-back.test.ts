import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isPrheraldError } from '../../src/errors.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import type { TalkBackApi } from '../../src/hosts/talk-back-contract.ts'
import { startFakeOAuthHost, type FakeHostKind, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { sendJson, startHttpFake, type HttpFake } from '../helpers/http-fake.ts'

/** Issue 33.1 and 33.3 at the host seam: each host's OAuth and review API against its fake, over real HTTP. */
const REDIRECT = 'https://prherald.example.com/oauth/callback'
const pr = (kind: FakeHostKind) => ({ owner: kind === 'gitlab' ? 'acme/platform' : 'acme', repo: 'api', number: 7 })
const prKey = (kind: FakeHostKind) => `${pr(kind).owner}/api#7`

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  if (!isPrheraldError(error)) throw new Error(`expected a PrheraldError, got ${String(error)}`)
  return error
}

describe.each(['github', 'gitlab', 'bitbucket'] as const)('talk-back at %s', (kind) => {
  let host: FakeOAuthHost
  let api: TalkBackApi
  const clock = { now: 1_000_000 }
  beforeEach(async () => {
    host = await startFakeOAuthHost(kind, { accounts: [{ login: 'alice', accountId: '557058:alice', name: 'Alice' }, { login: 'bob', accountId: '557058:bob' }] })
    const talkBack = hostOf(kind).talkBack!
    const env = { [talkBack.variables.clientId]: host.client.clientId, [talkBack.variables.clientSecret]: host.client.clientSecret, GITHUB_WEB_URL: host.url, BITBUCKET_WEB_URL: host.url }
    const client = talkBack.readOAuth(env, host.apiUrl)!
    api = talkBack.connect(client, host.apiUrl, () => clock.now)
  })
  afterEach(() => host.close())

  async function link() {
    const verifier = 'v'.repeat(50)
    const page = api.authorizeUrl({ state: 'state-1', redirectUri: REDIRECT, codeChallenge: createHash('sha256').update(verifier).digest('base64url') })
    expect(page.startsWith(host.url)).toBe(true)
    const answer = await fetch(page, { redirect: 'manual' })
    const back = new URL(answer.headers.get('location')!)
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
    expect(back.searchParams.get('state')).toBe('state-1')
    return api.exchangeCode({ code: back.searchParams.get('code')!, redirectUri: REDIRECT, codeVerifier: verifier })
  }

  it('links through the authorize page and the code, and tells whose account it is', async () => {
    const tokens = await link()
    expect(tokens.expiresAt).toBe(clock.now + (kind === 'github' ? 28_800_000 : 7_200_000))
    expect(tokens.refreshToken).toEqual(expect.any(String))
    const account = await api.account(tokens.accessToken)
    expect(account.login).toBe('alice')
    if (kind === 'bitbucket') expect(account.accountId).toBe('557058:alice')
    // A code is good once.
    expect((await refusal(link().then(() => api.exchangeCode({ code: 'used', redirectUri: REDIRECT, codeVerifier: 'x' })))).code).toBe('git_host_auth')
  })

  it('refreshes with rotation: the new refresh token replaces the old, which the host then refuses', async () => {
    const first = await link()
    const second = await api.refresh(first.refreshToken!, REDIRECT)
    expect(second.refreshToken).not.toBe(first.refreshToken)
    expect(host.refreshes).toBe(1)
    expect((await api.account(second.accessToken)).login).toBe('alice')
    const again = await refusal(api.refresh(first.refreshToken!, REDIRECT))
    expect(again.code).toBe('git_host_auth')
    expect(again.hostSays).toMatch(/refresh token|invalid/i)
    expect(again.message).not.toContain(first.refreshToken!)
    // The access token of a used refresh token is over too.
    expect((await refusal(api.account(first.accessToken))).code).toBe('git_host_auth')
  })

  it('a refused OAuth client (a rotated secret) is the client\'s trouble, not the person\'s grant: that stays good', async () => {
    const tokens = await link()
    const secret = host.client.clientSecret
    host.client.clientSecret = 'rotated-at-the-host'
    const refused = await refusal(api.refresh(tokens.refreshToken!, REDIRECT))
    expect(refused.code).toBe('git_host_client')
    expect(refused.message).not.toContain(secret)
    // The host's 5xx is not the grant either.
    host.client.clientSecret = secret
    host.tokenFault = 'html'
    expect((await refusal(api.refresh(tokens.refreshToken!, REDIRECT))).code).toBe('git_host_client')
    host.tokenFault = undefined
    expect((await api.refresh(tokens.refreshToken!, REDIRECT)).accessToken).toEqual(expect.any(String))
  })

  it('revokes where the host can, and says so where it cannot', async () => {
    const tokens = await link()
    if (kind === 'bitbucket') {
      expect(await api.revoke(tokens)).toBe('unsupported')
      return
    }
    expect(await api.revoke(tokens)).toBe('revoked')
    expect(host.revoked).toEqual([tokens.accessToken])
    // GitHub: the app's grant itself is gone (not only this token), so it is no longer authorised for the person.
    if (kind === 'github') expect(host.grants.has('alice')).toBe(false)
    expect((await refusal(api.account(tokens.accessToken))).code).toBe('git_host_auth')
    // Already revoked: nothing left to do, not a failure.
    expect(await api.revoke(tokens)).toBe('revoked')
  })

  it('creates, edits and deletes a comment as the person', async () => {
    const person = api.as((await link()).accessToken)
    const made = await person.createComment(pr(kind), 'LGTM from **Slack**')
    expect(host.comments).toEqual([expect.objectContaining({ id: Number(made.id), pr: prKey(kind), body: 'LGTM from **Slack**', author: 'alice', deleted: false })])
    await person.editComment(pr(kind), made.id, 'edited')
    expect(host.comments[0]!.body).toBe('edited')
    await person.deleteComment(pr(kind), made.id)
    expect(host.comments[0]!.deleted).toBe(true)
    // Deleting it again (a retried delete) is done, not an error.
    await person.deleteComment(pr(kind), made.id)
  })

  it('approves, requests changes and comments, for the head the message showed', async () => {
    host.heads.set(prKey(kind), 'abc123')
    // GitLab sets a requested-changes state only for one of the merge request's reviewers.
    host.reviewers.set(prKey(kind), ['alice'])
    const person = api.as((await link()).accessToken)
    const approved = await person.review(pr(kind), { kind: 'approve', body: 'ship it', headSha: 'abc123' })
    expect(approved.steps.every((s) => s.ok)).toBe(true)
    await person.review(pr(kind), { kind: 'request_changes', body: 'please add a test', headSha: 'abc123' })
    expect(host.reviews.map((r) => r.kind)).toEqual(['approve', 'request_changes'])
    if (kind === 'github') expect(host.reviews[0]).toMatchObject({ sha: 'abc123', body: 'ship it' })
    if (kind === 'gitlab') expect(host.reviews[0]).toMatchObject({ sha: 'abc123' })
    // Where approving with text is two calls, the text is a comment of its own.
    if (kind !== 'github') expect(host.comments.map((c) => c.body)).toContain('ship it')
    if (kind === 'gitlab') {
      expect(await person.canRequestChanges!()).toBe(true)
      // Before 19.2 bulk_publish has no reviewer_state: the action is not offered there.
      host.gitlabVersion = '19.1.4-ee'
      expect(await person.canRequestChanges!()).toBe(false)
      host.gitlabVersion = '18.11.0'
      expect(await person.canRequestChanges!()).toBe(false)
    }
  })

  it('shows the host\'s refusal in its words: one\'s own pull request, a newer head', async () => {
    host.authors.set(prKey(kind), 'alice')
    host.heads.set(prKey(kind), 'newer')
    const person = api.as((await link()).accessToken)
    const own = await refusal(person.review(pr(kind), { kind: 'approve', headSha: 'newer' }))
    expect(own.code).toBe('git_host_refused')
    expect(own.hostSays).toMatch(kind === 'gitlab' ? /did not let you approve/ : /own pull request/)
    host.authors.delete(prKey(kind))
    // GitHub would take a review of the older commit (and count the approval), Bitbucket's approval names no commit:
    // refused before it is sent, in the same words on every host.
    for (const kindOfReview of ['approve', 'request_changes', 'comment'] as const) {
      const stale = await refusal(person.review(pr(kind), { kind: kindOfReview, body: 'text', headSha: 'older00' }))
      expect(stale.code).toBe('git_host_refused')
      expect(stale.hostSays).toBe('new commits were pushed since you opened this (the head is now newer, you saw older00); nothing was sent: look at them, then open the review again from the message')
    }
    expect(host.reviews).toEqual([])
    expect(host.comments).toEqual([])
  })

  it('reports, not hides, a second call that failed after the approval; GitHub makes none', async () => {
    const person = api.as((await link()).accessToken)
    host.failComments = 1
    const outcome = await person.review(pr(kind), { kind: 'approve', body: 'nice', headSha: 'abc' })
    // GitHub approves with its text in one review, so nothing can fail after the approval; the others comment apart.
    const steps = kind === 'github' ? [{ step: 'review', ok: true }] : [{ step: 'approve', ok: true }, { step: 'comment', ok: false }]
    expect(outcome.steps).toMatchObject(steps)
    expect(host.reviews.map((r) => r.kind)).toEqual(['approve'])
    expect(host.comments.map((c) => c.body)).toEqual([])
  })
})

describe('talk-back settings from the environment', () => {
  it('reads the OAuth pages\' address per host, GitHub Enterprise and GitLab\'s relative root included', () => {
    const both = (prefix: string) => ({ [`${prefix}_OAUTH_CLIENT_ID`]: 'id', [`${prefix}_OAUTH_CLIENT_SECRET`]: 'secret' })
    expect(hostOf('github').talkBack!.readOAuth(both('GITHUB'), 'https://api.github.com')!.webUrl).toBe('https://github.com')
    expect(hostOf('github').talkBack!.readOAuth({ ...both('GITHUB'), GITHUB_WEB_URL: 'https://ghe.example.com/' }, 'https://ghe.example.com/api/v3')!.webUrl).toBe('https://ghe.example.com')
    expect(hostOf('gitlab').talkBack!.readOAuth(both('GITLAB'), 'https://git.example.com/gitlab/api/v4/')!.webUrl).toBe('https://git.example.com/gitlab')
    expect(hostOf('bitbucket').talkBack!.readOAuth(both('BITBUCKET'), 'https://api.bitbucket.org/2.0')!.webUrl).toBe('https://bitbucket.org')
    expect(hostOf('github').talkBack!.readOAuth({}, 'https://api.github.com')).toBeUndefined()
  })

  it('refuses half a client, naming the missing variable', () => {
    const error = (() => { try { hostOf('gitlab').talkBack!.readOAuth({ GITLAB_OAUTH_CLIENT_ID: 'id' }, 'https://gitlab.com/api/v4') } catch (e) { return e } })()
    expect(isPrheraldError(error, 'config_invalid')).toBe(true)
    expect((error as Error).message).toBe('GITLAB_OAUTH_CLIENT_SECRET is not set, but GITLAB_OAUTH_CLIENT_ID is')
  })

  it('mentions by login, and by account id on Bitbucket', () => {
    expect(hostOf('github').talkBack!.mention('alice')).toBe('@alice')
    expect(hostOf('bitbucket').talkBack!.mention('557058:alice')).toBe('@{557058:alice}')
  })
})

describe('a person\'s token goes only where it was configured to go', () => {
  const fakes: HttpFake[] = []
  afterEach(async () => { await Promise.all(fakes.splice(0).map((f) => f.close())) })

  it('follows a redirect on the same address, and refuses one elsewhere without sending the token there', async () => {
    const elsewhere = await startHttpFake((_, res) => sendJson(res, 200, { login: 'mallory' }))
    fakes.push(elsewhere)
    const github = await startHttpFake((req, res) => {
      if (req.path === '/api/v3/user') return void res.writeHead(307, { location: '/api/v3/moved/user' }).end()
      if (req.path === '/api/v3/moved/user') return sendJson(res, 200, { login: 'alice' })
      if (req.path === '/api/v3/repos/acme/api/issues/7/comments') return void res.writeHead(307, { location: `${elsewhere.url}/steal` }).end()
      return sendJson(res, 404, { message: 'Not Found' })
    })
    fakes.push(github)
    const talkBack = hostOf('github').talkBack!
    const api = talkBack.connect({ clientId: 'id', clientSecret: 'secret', webUrl: github.url }, `${github.url}/api/v3`)
    expect((await api.account('ghu_person')).login).toBe('alice')
    const error = await refusal(api.as('ghu_person').createComment({ owner: 'acme', repo: 'api', number: 7 }, 'hi'))
    expect(error.code).toBe('git_host')
    expect(error.message).toBe(`GitHub redirected POST /api/v3/repos/acme/api/issues/7/comments to ${elsewhere.url}; not followed`)
    expect(elsewhere.requests).toEqual([])
  })
})
