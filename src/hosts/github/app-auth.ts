import { createRequire } from 'node:module'
import type { createAppAuth as CreateAppAuth } from '@octokit/auth-app'
import type { EndpointOptions, RequestInterface, RequestParameters, Route } from '@octokit/types'
import { PrheraldError } from '../../errors.ts'
import { gitHostError } from '../git-host-error.ts'
import type { GithubAppCredentials } from './app-credentials.ts'

type AppAuth = ReturnType<typeof CreateAppAuth>

/** Routes GitHub authenticates with the app's JWT rather than an installation token. */
const APP_ROUTE = /^\/(app(\/|$)|(orgs|users)\/[^/]+\/installation$|repos\/[^/]+\/[^/]+\/installation$)/

/** The account a call acts on: the repository's owner, the organisation, or the user whose repositories are listed. */
export function ownerOfPath(path: string): { owner: string; repo?: string } | undefined {
  const m = /^\/repos\/([^/]+)\/([^/]+)/.exec(path) ?? /^\/orgs\/([^/]+)(?:\/|$)/.exec(path) ?? /^\/users\/([^/]+)\/./.exec(path)
  if (!m) return undefined
  const repo = m[0].startsWith('/repos/') ? decodeURIComponent(m[2]!) : undefined
  return { owner: decodeURIComponent(m[1]!), ...(repo ? { repo } : {}) }
}

const statusOf = (error: unknown) => (error as { status?: unknown }).status

function pathOf(url: string, baseUrl: string): string {
  const base = new URL(baseUrl).pathname.replace(/\/+$/, '')
  const path = new URL(url, baseUrl).pathname
  return path.startsWith(`${base}/`) ? path.slice(base.length) : path
}

/**
 * An Octokit auth strategy for a GitHub App installed on several owners: each call authenticates as the
 * installation of the owner it acts on (GITHUB_APP_INSTALLATION_ID, or looked up once per owner with the
 * app's JWT); @octokit/auth-app's per-installation strategies cache the installation tokens and renew them.
 */
export function ownerAppAuth(options: { app: GithubAppCredentials; request: RequestInterface }) {
  const { app, request } = options
  // Loaded only for an app, like Octokit itself (client.ts): a server with a token, or of another host, never needs it.
  const { createAppAuth } = createRequire(import.meta.url)('@octokit/auth-app') as typeof import('@octokit/auth-app')
  const strategy = (installationId?: number): AppAuth =>
    createAppAuth({ appId: app.appId, privateKey: app.privateKey, request, ...(installationId ? { installationId } : {}) })
  const appAuth = strategy()
  const appRequest = request.defaults({ request: { hook: appAuth.hook } })
  const strategies = new Map<number, AppAuth>()
  const installations = new Map<string, Promise<number>>()
  const renewals = new Map<number, Promise<string>>()

  async function lookUp(owner: string, repo: string | undefined): Promise<number> {
    const routes = [`/orgs/${encodeURIComponent(owner)}/installation`, `/users/${encodeURIComponent(owner)}/installation`]
    if (repo) routes.push(`/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/installation`)
    for (const url of routes) {
      try {
        return (await appRequest({ method: 'GET', url })).data.id as number
      } catch (error) {
        const status = statusOf(error)
        if (status === 404) continue
        if (status === 401) {
          throw new PrheraldError('git_host_auth', `GitHub refused the app's token (GET ${url}: 401)`, {
            fix: 'GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY_FILE must belong to the same app: check the id, or generate a new private key',
          })
        }
        throw gitHostError({ provider: 'github', what: `GET ${url}`, status: typeof status === 'number' ? status : undefined, cause: error, apiUrl: request.endpoint.DEFAULTS.baseUrl })
      }
    }
    throw new PrheraldError('git_host_not_found', `GitHub App ${app.appId} is not installed on ${owner}`, {
      fix: `install the app on ${owner} (the app's page → Install App), or set GITHUB_APP_INSTALLATION_ID`,
    })
  }

  /** The installation for an owner's calls; calls about no owner (a profile) use any installation. */
  function installationOf(target: { owner: string; repo?: string } | undefined): Promise<number> {
    if (app.installationId !== undefined) return Promise.resolve(app.installationId)
    const key = target?.owner.toLowerCase() ?? ''
    let found = installations.get(key)
    if (!found) {
      found = target ? lookUp(target.owner, target.repo) : anyInstallation()
      // A failure is not kept: installing the app later works without a restart.
      found.catch(() => installations.delete(key))
      installations.set(key, found)
    }
    return found
  }

  async function anyInstallation(): Promise<number> {
    const known = [...installations.entries()].find(([owner]) => owner !== '')
    if (known) return known[1]
    const { data } = await appRequest({ method: 'GET', url: '/app/installations', per_page: 1 })
    const first = (data as Array<{ id: number }>)[0]
    if (!first) throw new PrheraldError('git_host_not_found', `GitHub App ${app.appId} has no installation`, { fix: 'install the app on the organisations prherald serves' })
    return first.id
  }

  function strategyOf(installationId: number): AppAuth {
    let found = strategies.get(installationId)
    if (!found) strategies.set(installationId, (found = strategy(installationId)))
    return found
  }

  async function hook(request: RequestInterface, route: Route | EndpointOptions, parameters?: RequestParameters) {
    const endpoint = request.endpoint.merge(route as string, parameters)
    const path = pathOf(request.endpoint.parse(endpoint).url, request.endpoint.DEFAULTS.baseUrl)
    if (APP_ROUTE.test(path)) return appAuth.hook(request, route, parameters)
    const target = ownerOfPath(path)
    // merge() always sets the url its type leaves optional: the route gives it.
    return asInstallation(await installationOf(target), request, endpoint as EndpointOptions, `${endpoint.method} ${path}`, target?.owner)
  }

  /**
   * One call with the installation's token; on a 401, once more with a new token. GitHub can stop accepting a
   * token before its hour: "Once an installation token is revoked, the token is invalidated and cannot be
   * used. Other endpoints that require the revoked installation token must have a new installation token to
   * work." (docs.github.com, REST "Revoke an installation access token"); a clock that jumped does the same.
   * @octokit/auth-app keeps a token for its hour and retries a 401 only within 5 s of issuing it (its
   * hook.js, for replication delay), so a refused token would otherwise fail every call for up to an hour.
   */
  async function asInstallation(installationId: number, request: RequestInterface, endpoint: EndpointOptions, what: string, owner: string | undefined) {
    const withToken = (token: string) => request({ ...endpoint, headers: { ...endpoint.headers, authorization: `token ${token}` } })
    const { token } = await strategyOf(installationId)({ type: 'installation' })
    try {
      return await withToken(token)
    } catch (error) {
      if (statusOf(error) !== 401) throw error
    }
    try {
      return await withToken(await renew(installationId, token))
    } catch (error) {
      if (statusOf(error) !== 401) throw error
      throw new PrheraldError('git_host_auth', `GitHub refused GitHub App ${app.appId}'s installation token (${what}: 401), a new one included`, {
        cause: error,
        fix: `check that the app is still installed${owner ? ` on ${owner}` : ''} and not suspended (Settings → GitHub Apps → Configure), ` +
          'that this machine\'s clock is right, and that GITHUB_APP_PRIVATE_KEY_FILE is a current key of the app (the app\'s settings page → Private keys)',
      })
    }
  }

  /** A new token for the installation, unless another call has already replaced the refused one; one request for many refused calls. */
  function renew(installationId: number, refused: string): Promise<string> {
    let renewal = renewals.get(installationId)
    if (!renewal) {
      const auth = strategyOf(installationId)
      renewal = (async () => {
        const current = (await auth({ type: 'installation' })).token
        return current !== refused ? current : (await auth({ type: 'installation', refresh: true })).token
      })().finally(() => renewals.delete(installationId))
      renewals.set(installationId, renewal)
    }
    return renewal
  }

  /** Octokit's `auth()`: for the doctor, gets the owner's installation token and says which installation it is. */
  async function describe(owner: string): Promise<string> {
    const installationId = await installationOf({ owner })
    await strategyOf(installationId)({ type: 'installation' })
    return `GitHub App ${app.appId}: installation ${installationId} (token issued)`
  }

  /** The owner's installation's permissions (`pull_requests: 'write'`…), as GitHub grants them with its token: for the doctor. */
  async function permissions(owner: string): Promise<Record<string, string>> {
    const installationId = await installationOf({ owner })
    return { ...(await strategyOf(installationId)({ type: 'installation' })).permissions }
  }

  return Object.assign(describe, { hook, permissions })
}
