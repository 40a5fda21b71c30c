import type { Provider } from '../../machines/pull-request-event.ts'
import { isPrheraldError } from '../errors.ts'
import { createBitbucketClient, type BitbucketClient } from './bitbucket/client.ts'
import { createGithubClient, githubCall, type GithubClient } from './github/client.ts'

/** The events prherald decodes; a webhook missing one silently drops that part of the lifecycle. */
export const REQUIRED_EVENTS: Record<Provider, readonly string[]> = {
  github: ['pull_request', 'pull_request_review', 'pull_request_review_comment', 'issue_comment'],
  bitbucket: [
    'pullrequest:created', 'pullrequest:updated', 'pullrequest:approved', 'pullrequest:unapproved',
    'pullrequest:changes_request_created', 'pullrequest:changes_request_removed',
    'pullrequest:fulfilled', 'pullrequest:rejected', 'pullrequest:comment_created',
  ],
}

/**
 * Events prherald uses when they come, without which the rest still works: GitHub's check results (a
 * `check_suite` completed, a commit `status`) for "Checks failing" on the message. A webhook without them is
 * a WARN in the checks, never a FAIL; create-webhook subscribes to them.
 */
export const OPTIONAL_EVENTS: Record<Provider, readonly string[]> = {
  github: ['check_suite', 'status'],
  bitbucket: [],
}

/** A repository webhook, the same shape for both hosts. */
export interface WebhookInfo {
  id: string
  url: string
  active: boolean
  events: string[]
}

export interface GitHostAccess {
  provider: Provider
  /** GITHUB_API_URL or BITBUCKET_API_URL. */
  apiUrl: string
  token: string
  bitbucketAuthEmail?: string | undefined
}

export interface WebhookApi {
  listHooks(owner: string, repo: string): Promise<WebhookInfo[]>
  /** Hooks of the GitHub organisation or Bitbucket workspace: they deliver for every repository in it. */
  listOwnerHooks(owner: string): Promise<WebhookInfo[]>
  /** Names of the owner's (organisation, user or workspace) repositories, archived ones left out. */
  listOwnerRepos(owner: string): Promise<string[]>
}

const enc = encodeURIComponent

export function createWebhookApi(access: GitHostAccess): WebhookApi {
  const api = access.provider === 'github'
    ? githubWebhookApi(createGithubClient({ baseUrl: access.apiUrl, token: access.token }))
    : bitbucketWebhookApi(createBitbucketClient({ baseUrl: access.apiUrl, token: access.token, authEmail: access.bitbucketAuthEmail }))
  // An owner's "*" entry can cover hundreds of repositories without a hook of their own: list the owner's hooks once per run.
  const ownerHooks = new Map<string, Promise<WebhookInfo[]>>()
  return {
    ...api,
    listOwnerHooks(owner) {
      let hooks = ownerHooks.get(owner)
      if (!hooks) ownerHooks.set(owner, hooks = api.listOwnerHooks(owner))
      return hooks
    },
  }
}

function githubWebhookApi(octokit: GithubClient): WebhookApi {
  return {
    async listHooks(owner, repo) {
      const hooks = await githubCall(octokit, `GET /repos/${owner}/${repo}/hooks`, () =>
        octokit.paginate(octokit.rest.repos.listWebhooks, { owner, repo, per_page: 100 }))
      return hooks.map((h) => ({ id: String(h.id), url: h.config.url ?? '', active: h.active, events: h.events }))
    },
    async listOwnerHooks(org) {
      const hooks = await githubCall(octokit, `GET /orgs/${org}/hooks`, () => octokit.paginate(octokit.rest.orgs.listWebhooks, { org, per_page: 100 }))
      return hooks.map((h) => ({ id: String(h.id), url: h.config.url ?? '', active: h.active, events: h.events }))
    },
    async listOwnerRepos(owner) {
      let repos: Array<{ name: string; archived?: boolean }>
      try {
        repos = await githubCall(octokit, `GET /orgs/${owner}/repos`, () => octokit.paginate(octokit.rest.repos.listForOrg, { org: owner, per_page: 100 }))
      } catch (error) {
        // The owner is a user account, not an organisation.
        if (!isPrheraldError(error, 'git_host_not_found')) throw error
        repos = await githubCall(octokit, `GET /users/${owner}/repos`, () => octokit.paginate(octokit.rest.repos.listForUser, { username: owner, per_page: 100 }))
      }
      // Archived repositories are read-only and send no pull-request events.
      return repos.filter((r) => !r.archived).map((r) => r.name)
    },
  }
}

interface BitbucketHookBody {
  uuid?: string
  url?: string
  active?: boolean
  events?: string[]
}

const bitbucketHook = (h: BitbucketHookBody): WebhookInfo => ({ id: h.uuid ?? '', url: h.url ?? '', active: h.active ?? false, events: h.events ?? [] })

function bitbucketWebhookApi(client: BitbucketClient): WebhookApi {
  return {
    async listHooks(workspace, repo) {
      const hooks = await client.paginate<BitbucketHookBody>(`/repositories/${enc(workspace)}/${enc(repo)}/hooks`)
      return hooks.map(bitbucketHook)
    },
    async listOwnerHooks(workspace) {
      return (await client.paginate<BitbucketHookBody>(`/workspaces/${enc(workspace)}/hooks`)).map(bitbucketHook)
    },
    async listOwnerRepos(workspace) {
      const repos = await client.paginate<{ slug: string }>(`/repositories/${enc(workspace)}?pagelen=100`)
      return repos.map((r) => r.slug)
    },
  }
}

export interface GithubWebhookSpec {
  owner: string
  repo: string
  /** `${PRHERALD_PUBLIC_URL}/webhook/github` */
  url: string
  secret: string
}

/**
 * Creates the repository's prherald webhook, or updates the one already pointing at the same URL (so that
 * running the helper twice, or after a secret rotation, leaves exactly one hook). Returns what it did.
 */
export async function upsertGithubWebhook(octokit: GithubClient, spec: GithubWebhookSpec): Promise<{ action: 'created' | 'updated'; id: number }> {
  const { owner, repo } = spec
  const hooks = await githubCall(octokit, `GET /repos/${owner}/${repo}/hooks`, () =>
    octokit.paginate(octokit.rest.repos.listWebhooks, { owner, repo, per_page: 100 }))
  const same = (url: string | undefined) => url?.replace(/\/+$/, '') === spec.url
  const existing = hooks.find((h) => same(h.config.url))
  const config = { url: spec.url, content_type: 'json', secret: spec.secret, insecure_ssl: '0' as const }
  const events = [...REQUIRED_EVENTS.github, ...OPTIONAL_EVENTS.github]
  if (existing) {
    await githubCall(octokit, `PATCH /repos/${owner}/${repo}/hooks/${existing.id}`, () =>
      octokit.rest.repos.updateWebhook({ owner, repo, hook_id: existing.id, active: true, events, config }))
    return { action: 'updated', id: existing.id }
  }
  const created = await githubCall(octokit, `POST /repos/${owner}/${repo}/hooks`, () =>
    octokit.rest.repos.createWebhook({ owner, repo, name: 'web', active: true, events, config }))
  return { action: 'created', id: created.data.id }
}
