import { isPrheraldError } from '../../errors.ts'
import type { WebhookSpec } from '../contract.ts'
import type { WebhookApi } from '../webhooks.ts'
import { githubCall, type GithubClient } from './client.ts'

export function githubWebhookApi(octokit: GithubClient): WebhookApi {
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

/**
 * Creates the repository's prherald webhook, or updates the one already pointing at the same URL (so that
 * running the helper twice, or after a secret rotation, leaves exactly one hook). Returns what it did.
 */
export async function upsertGithubWebhook(octokit: GithubClient, spec: WebhookSpec, events: string[]): Promise<{ action: 'created' | 'updated'; id: number }> {
  const { owner, repo } = spec
  const hooks = await githubCall(octokit, `GET /repos/${owner}/${repo}/hooks`, () =>
    octokit.paginate(octokit.rest.repos.listWebhooks, { owner, repo, per_page: 100 }))
  const same = (url: string | undefined) => url?.replace(/\/+$/, '') === spec.url
  const existing = hooks.find((h) => same(h.config.url))
  const config = { url: spec.url, content_type: 'json', secret: spec.secret, insecure_ssl: '0' as const }
  if (existing) {
    await githubCall(octokit, `PATCH /repos/${owner}/${repo}/hooks/${existing.id}`, () =>
      octokit.rest.repos.updateWebhook({ owner, repo, hook_id: existing.id, active: true, events, config }))
    return { action: 'updated', id: existing.id }
  }
  const created = await githubCall(octokit, `POST /repos/${owner}/${repo}/hooks`, () =>
    octokit.rest.repos.createWebhook({ owner, repo, name: 'web', active: true, events, config }))
  return { action: 'created', id: created.data.id }
}
