/** A repository webhook, the same shape for both hosts. */
export interface WebhookInfo {
  id: string
  url: string
  active: boolean
  events: string[]
}

export interface WebhookApi {
  listHooks(owner: string, repo: string): Promise<WebhookInfo[]>
  /** Hooks of the GitHub organisation or Bitbucket workspace: they deliver for every repository in it. */
  listOwnerHooks(owner: string): Promise<WebhookInfo[]>
  /** Names of the owner's (organisation, user or workspace) repositories, archived ones left out. */
  listOwnerRepos(owner: string): Promise<string[]>
}

/** An owner's "*" entry can cover hundreds of repositories without a hook of their own: the owner's hooks are listed once per run. */
export function cachingOwnerHooks(api: WebhookApi): WebhookApi {
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
