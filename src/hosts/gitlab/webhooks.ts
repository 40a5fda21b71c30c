import type { WebhookSpec } from '../contract.ts'
import type { WebhookApi, WebhookInfo } from '../webhooks.ts'
import { projectId, type GitlabClient } from './client.ts'
import { GITLAB_EVENTS } from './events.ts'

/** A project or group hook as GitLab's API returns it (the fields prherald reads). */
interface GitlabHook {
  id: number
  url: string
  /** `executable`, `temporarily_disabled` (until `disabled_until`) or `disabled` after failed deliveries (15.7+). */
  alert_status?: string
  disabled_until?: string | null
  [event: string]: unknown
}

/** A hook that GitLab stopped after failed deliveries sends nothing: inactive, as a GitHub hook switched off. */
function isExecutable(hook: GitlabHook, now: number): boolean {
  if (hook.alert_status === 'disabled') return false
  if (hook.alert_status === 'temporarily_disabled') return hook.disabled_until ? Date.parse(hook.disabled_until) <= now : false
  return true
}

export const gitlabHook = (hook: GitlabHook, now = Date.now()): WebhookInfo => ({
  id: String(hook.id),
  url: hook.url,
  active: isExecutable(hook, now),
  events: Object.keys(hook).filter((key) => key.endsWith('_events') && hook[key] === true),
})

const enc = encodeURIComponent

export function gitlabWebhookApi(client: GitlabClient): WebhookApi {
  return {
    listHooks: async (owner, repo) => (await client.paginate<GitlabHook>(`/projects/${projectId(owner, repo)}/hooks`)).map((h) => gitlabHook(h)),
    // Group hooks need a Premium or Ultimate tier; a free group answers 404 (or 403), which the check reads as "none".
    listOwnerHooks: async (group) => (await client.paginate<GitlabHook>(`/groups/${enc(group)}/hooks`)).map((h) => gitlabHook(h)),
    async listOwnerRepos(group) {
      // Only the group's own projects: a subgroup's are its own mapping key (docs/gitlab.md#nested-groups).
      const projects = await client.paginate<{ path: string }>(`/groups/${enc(group)}/projects?archived=false&include_subgroups=false`)
      return projects.map((p) => p.path)
    },
  }
}

/**
 * Creates the project's prherald hook, or updates the one with the same URL (so running it twice, or after a
 * secret rotation, leaves one hook). The token is the secret GitLab sends back in X-Gitlab-Token.
 */
export async function upsertGitlabWebhook(client: GitlabClient, spec: WebhookSpec): Promise<{ action: 'created' | 'updated'; id: string }> {
  const base = `/projects/${projectId(spec.owner, spec.repo)}/hooks`
  const hooks = await client.paginate<GitlabHook>(base)
  const existing = hooks.find((h) => h.url.replace(/\/+$/, '') === spec.url)
  const body = {
    url: spec.url, token: spec.secret, enable_ssl_verification: true, push_events: false,
    ...Object.fromEntries(GITLAB_EVENTS.map((e) => [e, true])),
  }
  if (existing) {
    await client.request('PUT', `${base}/${existing.id}`, body)
    return { action: 'updated', id: String(existing.id) }
  }
  const created = await client.request<GitlabHook>('POST', base, body)
  return { action: 'created', id: String(created.id) }
}
