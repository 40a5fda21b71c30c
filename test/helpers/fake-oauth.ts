import { createHash, randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { sendJson, startHttpFake, type RecordedRequest } from './http-fake.ts'
import { handleReviewApi, type ReviewApiState } from './fake-review-api.ts'

/**
 * A git host's OAuth server and the part of its API a linked person uses (issue 33), on one 127.0.0.1 port:
 * the web pages at the root (`url`), the API under `apiUrl` (GitHub `/api/v3` as on GitHub Enterprise Server,
 * GitLab `/api/v4`, Bitbucket `/2.0`). The authorize page answers at once with the redirect a person's
 * consent would make, as `authorizer`. Refresh tokens rotate: one used is refused from then on, and the
 * access token it came with stops working, as all three hosts do.
 */
export type FakeHostKind = 'github' | 'gitlab' | 'bitbucket'

export interface FakeAccount {
  login: string
  accountId?: string
  name?: string
}

export interface FakeOAuthHost extends ReviewApiState {
  kind: FakeHostKind
  /** The web address (GITHUB_WEB_URL, BITBUCKET_WEB_URL; GitLab's is its API URL less /api/v4). */
  url: string
  apiUrl: string
  requests: RecordedRequest[]
  client: { clientId: string; clientSecret: string }
  accounts: FakeAccount[]
  /** Who is signed in at the host's authorize page: the account the code is for. */
  authorizer: string
  /** Seconds an access token lives; undefined: tokens do not expire and come without a refresh token. */
  accessTtl: number | undefined
  /** Refresh grants answered with new tokens (a refused one is not counted). */
  refreshes: number
  /** Access tokens revoked at the host. */
  revoked: string[]
  /** Whose grants the app holds: made by a consent (or `issue`), ended by the person or by deleting the grant (GitHub). */
  grants: Set<string>
  /** Tokens the host knows, by value: whose, and whether still good. */
  tokens: Map<string, { login: string; live: boolean }>
  /** The person removes the app's grant in the host's settings: every token of theirs stops working, refresh tokens included. */
  endGrant(login: string): void
  /**
   * Refresh grants wait, unanswered, until the returned release is called (a host slow to refresh); `held` counts
   * those waiting.
   */
  holdRefreshes(): () => void
  held: number
  /**
   * The token endpoint's next answers are not the host's: a proxy's HTML page, or a body that never ends (a
   * broken upstream). Undefined: the host answers.
   */
  tokenFault: 'html' | 'endless' | undefined
  /** Every API call (under `apiUrl`) answers this much later: a slow host. */
  apiDelayMs: number
  /** Mints a linked person's tokens directly (a test that starts linked). */
  issue(login: string): { accessToken: string; refreshToken: string | undefined }
  close(): Promise<void>
}

const API_ROOT: Record<FakeHostKind, string> = { github: '/api/v3', gitlab: '/api/v4', bitbucket: '/2.0' }
const TOKEN_PATH: Record<FakeHostKind, string> = { github: '/login/oauth/access_token', gitlab: '/oauth/token', bitbucket: '/site/oauth2/access_token' }
const AUTHORIZE_PATH: Record<FakeHostKind, string> = { github: '/login/oauth/authorize', gitlab: '/oauth/authorize', bitbucket: '/site/oauth2/authorize' }
const DEFAULT_TTL: Record<FakeHostKind, number> = { github: 28_800, gitlab: 7200, bitbucket: 7200 }

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')
const token = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`

export async function startFakeOAuthHost(kind: FakeHostKind, options: { accounts?: FakeAccount[]; accessTtl?: number | null } = {}): Promise<FakeOAuthHost> {
  const codes = new Map<string, { login: string; redirectUri: string | undefined; challenge: string | undefined }>()
  const refreshTokens = new Map<string, { login: string; used: boolean; accessToken: string }>()
  const state = {
    kind, client: { clientId: `${kind}-client`, clientSecret: `${kind}-secret-${randomBytes(4).toString('hex')}` },
    accounts: options.accounts ?? [{ login: 'alice', accountId: '557058:alice', name: 'Alice' }],
    authorizer: (options.accounts ?? [{ login: 'alice' }])[0]!.login,
    accessTtl: options.accessTtl === null ? undefined : options.accessTtl ?? DEFAULT_TTL[kind],
    refreshes: 0, held: 0, apiDelayMs: 0, revoked: [] as string[], tokens: new Map<string, { login: string; live: boolean }>(), grants: new Set<string>(),
    comments: [], reviews: [], heads: new Map(), reviewers: new Map(), drafts: [], authors: new Map(), gitlabVersion: '19.3.0-ee', failComments: 0, loseCommentAnswers: 0, failCommentLists: 0, refuseComments: undefined,
  } as unknown as FakeOAuthHost

  const mint = (login: string) => {
    const accessToken = token(kind === 'github' ? 'ghu' : 'at')
    state.grants.add(login)
    state.tokens.set(accessToken, { login, live: true })
    if (state.accessTtl === undefined) return { accessToken, refreshToken: undefined }
    const refreshToken = token(kind === 'github' ? 'ghr' : 'rt')
    refreshTokens.set(refreshToken, { login, used: false, accessToken })
    return { accessToken, refreshToken }
  }
  const answerTokens = (res: ServerResponse, login: string) => {
    const { accessToken, refreshToken } = mint(login)
    const expiry = state.accessTtl === undefined ? {} : {
      expires_in: state.accessTtl, refresh_token: refreshToken,
      ...(kind === 'github' ? { refresh_token_expires_in: 15_811_200 } : {}),
    }
    sendJson(res, 200, { access_token: accessToken, token_type: 'bearer', scope: kind === 'gitlab' ? 'api' : '', ...expiry })
  }
  // GitHub answers a refused grant with 200 and an `error`; GitLab (Doorkeeper, RFC 6749) with 400 invalid_grant;
  // Bitbucket Cloud a refresh token it no longer takes with 400 invalid_request, "Invalid refresh_token" (Atlassian
  // Community, "How do I refresh a token"), and a bad code with RFC 6749's invalid_grant.
  const refuse = (res: ServerResponse, description: string, githubError: string) => kind === 'github'
    ? sendJson(res, 200, { error: githubError, error_description: description })
    : kind === 'bitbucket' && githubError === 'bad_refresh_token'
      ? sendJson(res, 400, { error: 'invalid_request', error_description: 'Invalid refresh_token' })
      : sendJson(res, 400, { error: 'invalid_grant', error_description: description })

  const clientOf = (req: RecordedRequest) => {
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1]
    if (basic) {
      const [id, secret] = Buffer.from(basic, 'base64').toString().split(':')
      return { id, secret }
    }
    return { id: req.body.client_id, secret: req.body.client_secret }
  }
  const clientOk = (req: RecordedRequest) => {
    const { id, secret } = clientOf(req)
    return id === state.client.clientId && secret === state.client.clientSecret
  }

  let refreshGate: Promise<void> | undefined
  async function tokenEndpoint(req: RecordedRequest, res: ServerResponse) {
    if (refreshGate && req.body.grant_type === 'refresh_token') {
      state.held++
      await refreshGate
      state.held--
    }
    if (state.tokenFault === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in to the proxy</body></html>')
    if (state.tokenFault === 'endless') {
      // A JSON-looking body that never ends: written until the reader goes away.
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"access_token":"')
      const chunk = 'x'.repeat(16 * 1024)
      const more = () => { if (!res.destroyed && res.write(chunk)) setImmediate(more) }
      res.on('drain', more)
      res.on('close', () => res.off('drain', more))
      return void more()
    }
    // A wrong client: GitHub's 200 incorrect_client_credentials, GitLab's (Doorkeeper) 401 invalid_client, Bitbucket's
    // unauthorized_client "Invalid OAuth client credentials".
    if (!clientOk(req)) {
      if (kind === 'github') return sendJson(res, 200, { error: 'incorrect_client_credentials' })
      return kind === 'bitbucket'
        ? sendJson(res, 400, { error: 'unauthorized_client', error_description: 'Invalid OAuth client credentials' })
        : sendJson(res, 401, { error: 'invalid_client' })
    }
    const grant = String(req.body.grant_type ?? 'authorization_code')
    if (grant === 'refresh_token') {
      const held = refreshTokens.get(String(req.body.refresh_token))
      if (!held || held.used) return refuse(res, 'The refresh token is invalid, expired or already used.', 'bad_refresh_token')
      // Rotation: this refresh token and the access token it came with end now.
      held.used = true
      const old = state.tokens.get(held.accessToken)
      if (old) old.live = false
      state.refreshes++
      return answerTokens(res, held.login)
    }
    const code = codes.get(String(req.body.code))
    codes.delete(String(req.body.code))
    if (!code) return refuse(res, 'The code passed is incorrect or expired.', 'bad_verification_code')
    if (code.redirectUri !== undefined && req.body.redirect_uri !== code.redirectUri) return refuse(res, 'The redirect_uri does not match.', 'redirect_uri_mismatch')
    if (code.challenge !== undefined && s256(String(req.body.code_verifier ?? '')) !== code.challenge) return refuse(res, 'The code verifier does not match.', 'bad_verification_code')
    return answerTokens(res, code.login)
  }

  function authorize(req: RecordedRequest, res: ServerResponse): void {
    const redirect = req.query.get('redirect_uri')
    if (req.query.get('client_id') !== state.client.clientId || !redirect) return void res.writeHead(400).end('unknown client')
    if (kind === 'gitlab' && (req.query.get('code_challenge_method') !== 'S256' || req.query.get('scope') !== 'api')) return void res.writeHead(400).end('PKCE S256 and the api scope are required')
    const code = token('code')
    codes.set(code, { login: state.authorizer, redirectUri: redirect, challenge: req.query.get('code_challenge') ?? undefined })
    const to = new URL(redirect)
    to.searchParams.set('code', code)
    to.searchParams.set('state', req.query.get('state') ?? '')
    res.writeHead(302, { location: to.toString() }).end()
  }

  const api = API_ROOT[kind]
  const fake = await startHttpFake(async (req, res) => {
    if (req.method === 'GET' && req.path === AUTHORIZE_PATH[kind]) return void authorize(req, res)
    if (req.method === 'POST' && req.path === TOKEN_PATH[kind]) return tokenEndpoint(req, res)
    if (kind === 'gitlab' && req.method === 'POST' && req.path === '/oauth/revoke') {
      if (!clientOk(req)) return sendJson(res, 403, { error: 'unauthorized_client' })
      revoke(String(req.body.token))
      return sendJson(res, 200, {})
    }
    // GitHub's "Delete an app authorization": the grant and every token of its user, found by a valid access token.
    if (kind === 'github' && req.method === 'DELETE' && req.path === `${api}/applications/${state.client.clientId}/grant`) {
      const holder = state.tokens.get(String(req.body.access_token))
      if (!clientOk(req) || !holder?.live) return sendJson(res, 404, { message: 'Not Found' })
      for (const [value, held] of state.tokens) if (held.login === holder.login && held.live) revoke(value)
      state.grants.delete(holder.login)
      return void res.writeHead(204).end()
    }
    // GitHub's "Delete an app token": that token alone; the app stays authorised.
    if (kind === 'github' && req.method === 'DELETE' && req.path === `${api}/applications/${state.client.clientId}/token`) {
      if (!clientOk(req)) return sendJson(res, 404, { message: 'Not Found' })
      if (!state.tokens.get(String(req.body.access_token))?.live) return sendJson(res, 404, { message: 'Not Found' })
      revoke(String(req.body.access_token))
      return void res.writeHead(204).end()
    }
    if (!req.path.startsWith(`${api}/`)) return sendJson(res, 404, { message: 'Not Found' })
    if (state.apiDelayMs > 0) await new Promise((r) => setTimeout(r, state.apiDelayMs))
    // Octokit sends a token as `token …`, the others `Bearer …`.
    const bearer = /^(?:Bearer|token) (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1]
    const holder = bearer === undefined ? undefined : state.tokens.get(bearer)
    if (!holder?.live) return sendJson(res, 401, kind === 'bitbucket' ? { type: 'error', error: { message: 'Access token expired.' } } : { message: 'Bad credentials' })
    const account = state.accounts.find((a) => a.login === holder.login)!
    return handleReviewApi(kind, state, account, req.method, req.path.slice(api.length), req.body, res)
  })
  function revoke(accessToken: string) {
    const held = state.tokens.get(accessToken)
    if (!held) return
    held.live = false
    state.revoked.push(accessToken)
    for (const r of refreshTokens.values()) if (r.accessToken === accessToken) r.used = true
  }
  return Object.assign(state, {
    url: fake.url, apiUrl: `${fake.url}${api}`, requests: fake.requests, close: fake.close, issue: mint,
    holdRefreshes() {
      let release = () => {}
      refreshGate = new Promise<void>((resolve) => { release = resolve })
      return () => {
        refreshGate = undefined
        release()
      }
    },
    endGrant(login: string) {
      state.grants.delete(login)
      for (const held of state.tokens.values()) if (held.login === login) held.live = false
      for (const r of refreshTokens.values()) if (r.login === login) r.used = true
    },
  })
}
