import { generateKeyPairSync, verify } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import { sendJson, type RecordedRequest } from './http-fake.ts'

/** A GitHub App as the fake GitHub knows it: the public half of its key, and where it is installed. */
export interface FakeGithubAppState {
  id: number
  publicKey: string
  /** Installation ids by account login, and whether the account is an organisation or a user. */
  installations: Map<string, { id: number; type: 'Organization' | 'User' }>
  /** Installation tokens issued, with the installation each belongs to. */
  tokens: Map<string, number>
  /**
   * Every installation token refused as a revoked one is (401 Bad credentials), new ones included: what an
   * app whose tokens GitHub will not take looks like from prherald's side.
   */
  refuseTokens?: boolean
  /** The permissions each installation token carries (GitHub sends them with the token); none unless a test sets them. */
  permissions?: Record<string, string>
}

export interface TestGithubApp {
  id: number
  /** The PEM file (PKCS#1, as GitHub hands it out) for GITHUB_APP_PRIVATE_KEY_FILE. */
  keyFile: string
  privateKey: string
  state: FakeGithubAppState
}

/** A fresh app key pair (generated now, never checked in), its private key written to `dir`. */
export function createTestGithubApp(dir: string, id = 12345): TestGithubApp {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  })
  const keyFile = join(dir, 'app.private-key.pem')
  writeFileSync(keyFile, privateKey, { mode: 0o600 })
  return { id, keyFile, privateKey, state: { id, publicKey, installations: new Map(), tokens: new Map() } }
}

/** A JWT signed with the app's key (RS256), current, and issued by the app: GitHub's checks. */
function validJwt(app: FakeGithubAppState, authorization: string | undefined): boolean {
  const jwt = /^bearer (.+)$/i.exec(authorization ?? '')?.[1]
  const [header, payload, signature] = jwt?.split('.') ?? []
  if (!header || !payload || !signature) return false
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), app.publicKey, Buffer.from(signature, 'base64url'))) return false
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: unknown; exp?: unknown }
  return String(claims.iss) === String(app.id) && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now()
}

let issuedTokens = 0

const notFound = (res: ServerResponse) => sendJson(res, 404, { message: 'Not Found' })

/** The account an installation token may act on: its path's owner; a profile read (GET /users/{login}) needs none. */
function ownerOf(path: string): string | undefined {
  return (/^\/repos\/([^/]+)\//.exec(path) ?? /^\/orgs\/([^/]+)\//.exec(path) ?? /^\/users\/([^/]+)\/./.exec(path))?.[1]
}

/**
 * The app's side of the fake GitHub. Answers the app routes (JWT) and returns true when it answered; for
 * every other route, refuses anything but an installation token of the path's owner, as GitHub does.
 */
export function handleGithubApp(app: FakeGithubAppState, req: RecordedRequest, res: ServerResponse): boolean {
  const installationOf = (login: string) => [...app.installations.entries()].find(([l]) => l.toLowerCase() === login.toLowerCase())?.[1]
  let m: RegExpMatchArray | null
  const appRoute = /^\/app\//.test(req.path) || /\/installation$/.test(req.path)
  if (appRoute && !validJwt(app, req.headers.authorization)) {
    sendJson(res, 401, { message: 'A JSON web token could not be decoded' })
    return true
  }
  if ((m = req.path.match(/^\/app\/installations\/(\d+)\/access_tokens$/)) && req.method === 'POST') {
    const id = Number(m[1])
    if (![...app.installations.values()].some((i) => i.id === id)) return notFound(res), true
    // Numbered by all issued so far, so a token issued after a revocation is never a revoked one's again.
    issuedTokens++
    const token = `ghs_installation_${id}_${issuedTokens}`
    app.tokens.set(token, id)
    sendJson(res, 201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: app.permissions ?? {}, repository_selection: 'all' })
    return true
  }
  if (req.path === '/app/installations' && req.method === 'GET') {
    sendJson(res, 200, [...app.installations.entries()].map(([login, i]) => ({ id: i.id, account: { login, type: i.type } })))
    return true
  }
  if ((m = req.path.match(/^\/(orgs|users|repos)\/([^/]+)(?:\/[^/]+)?\/installation$/)) && req.method === 'GET') {
    const installation = installationOf(m[2]!)
    const kindMatches = m[1] === 'repos' || (m[1] === 'orgs') === (installation?.type === 'Organization')
    if (!installation || !kindMatches) return notFound(res), true
    sendJson(res, 200, { id: installation.id, account: { login: m[2], type: installation.type }, app_id: app.id })
    return true
  }
  if (appRoute) return notFound(res), true
  const token = /^token (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? /^bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1]
  const installationId = token === undefined ? undefined : app.tokens.get(token)
  if (installationId === undefined || app.refuseTokens) {
    sendJson(res, 401, { message: 'Bad credentials' })
    return true
  }
  // "Revokes the installation token you're using to authenticate as an installation and access this endpoint.
  // Once an installation token is revoked, the token is invalidated and cannot be used." (docs.github.com,
  // REST apps/installations, "Revoke an installation access token": DELETE /installation/token, 204.)
  if (req.path === '/installation/token' && req.method === 'DELETE') {
    app.tokens.delete(token!)
    res.writeHead(204).end()
    return true
  }
  const owner = ownerOf(req.path)
  // An installation sees only its own account's repositories; anything else is hidden, not forbidden.
  if (owner !== undefined && installationOf(owner)?.id !== installationId) return notFound(res), true
  return false
}

/** The installation whose token made a recorded request; undefined for a JWT, a PAT or none. */
export function installationOfRequest(app: FakeGithubAppState, req: RecordedRequest): number | undefined {
  const token = /^token (.+)$/i.exec(req.headers.authorization ?? '')?.[1]
  return token === undefined ? undefined : app.tokens.get(token)
}
