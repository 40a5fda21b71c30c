import type { PullRequestAddress } from '../contract.ts'
import type { BitbucketClient } from './client.ts'

interface BitbucketPullRequest {
  title?: string
  reviewers?: Array<{ account_id?: string; uuid?: string }>
}

/**
 * Bitbucket Cloud adds reviewers with "Update a pull request" (`PUT
 * /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}`, developer.atlassian.com/cloud/bitbucket/rest/api-group-pullrequests):
 * "Mutates the specified pull request ... Only open pull requests can be mutated." The `reviewers` sent
 * replace the list, and the PUT must carry the title (Atlassian's answer on community.atlassian.com, "Adding
 * reviewers to pull requests via REST API": "Title is required, so make sure you send that along"; without
 * it: 400 `"title": ["This field is required."]`). So the pull request is read first and its title and
 * reviewers go back with the new ones; people are keyed by account id in `users:`.
 */
export function bitbucketRequestReviewers(client: BitbucketClient) {
  return async (pr: PullRequestAddress, reviewers: readonly string[]): Promise<void> => {
    const path = `/repositories/${encodeURIComponent(pr.owner)}/${encodeURIComponent(pr.repo)}/pullrequests/${pr.number}`
    const current = await client.get<BitbucketPullRequest>(path)
    const kept = (current.reviewers ?? []).map((r) => (r.account_id ? { account_id: r.account_id } : { uuid: r.uuid }))
    const known = new Set((current.reviewers ?? []).flatMap((r) => (r.account_id ? [r.account_id] : [])))
    const added = reviewers.filter((id) => !known.has(id)).map((id) => ({ account_id: id }))
    if (added.length === 0) return
    await client.put(path, { title: current.title ?? '', reviewers: [...kept, ...added] })
  }
}
