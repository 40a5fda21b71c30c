import type { PullRequestAddress } from '../contract.ts'
import { projectId, type GitlabClient } from './client.ts'

/**
 * GitLab keeps a merge request's reviewers in `reviewer_ids` of "Update MR" (`PUT
 * /projects/:id/merge_requests/:merge_request_iid`, docs.gitlab.com/api/merge_requests; gitlab-org/gitlab#299846
 * sends it alone: `{ "reviewer_ids": [5] }`). It is the whole list, not an addition (the docs' "Set to 0 or
 * provide an empty value to unassign all reviewers"), so the merge request's current `reviewers` (GET, each
 * with its `id`) go back with the new ones. `users:` keys GitLab people by username; the id comes from
 * `GET /users?username=`, the look-up emailOf makes (index.ts).
 */
export function gitlabRequestReviewers(client: GitlabClient) {
  return async (pr: PullRequestAddress, reviewers: readonly string[]): Promise<void> => {
    const path = `/projects/${projectId(pr.owner, pr.repo)}/merge_requests/${pr.number}`
    const current = await client.request<{ reviewers?: Array<{ id: number }>; author?: { username?: string } }>('GET', path)
    const ids = new Set((current.reviewers ?? []).map((r) => r.id))
    const before = ids.size
    // A hook names the author only when they acted (decode.ts): the merge request itself always does.
    const author = current.author?.username?.toLowerCase()
    for (const username of reviewers) {
      if (username.toLowerCase() === author) continue
      const [user] = await client.request<Array<{ id: number }>>('GET', `/users?username=${encodeURIComponent(username)}`)
      if (user) ids.add(user.id)
    }
    if (ids.size === before) return
    await client.request('PUT', path, { reviewer_ids: [...ids] })
  }
}
