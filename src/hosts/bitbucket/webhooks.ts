import type { WebhookApi, WebhookInfo } from '../webhooks.ts'
import type { BitbucketClient } from './client.ts'

const enc = encodeURIComponent

interface BitbucketHookBody {
  uuid?: string
  url?: string
  active?: boolean
  events?: string[]
}

const bitbucketHook = (h: BitbucketHookBody): WebhookInfo => ({ id: h.uuid ?? '', url: h.url ?? '', active: h.active ?? false, events: h.events ?? [] })

export function bitbucketWebhookApi(client: BitbucketClient): WebhookApi {
  return {
    async listHooks(workspace, repo) {
      const hooks = await client.paginate<BitbucketHookBody>(`/repositories/${enc(workspace)}/${enc(repo)}/hooks`)
      return hooks.map(bitbucketHook)
    },
    listOwnerHooks: async (workspace) => (await client.paginate<BitbucketHookBody>(`/workspaces/${enc(workspace)}/hooks`)).map(bitbucketHook),
    async listOwnerRepos(workspace) {
      const repos = await client.paginate<{ slug: string }>(`/repositories/${enc(workspace)}?pagelen=100`)
      return repos.map((r) => r.slug)
    },
  }
}

