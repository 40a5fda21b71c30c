import { runWaitingOut, type GateClock, type HostRateGate } from '../host-rate-gate.ts'
import { readPullRequestWith } from '../read-pull-request.ts'
import { projectId, type GitlabClient } from './client.ts'
import { decodeGitlab, MERGE_REQUEST_HOOK } from './decode.ts'

type MergeRequest = Record<string, unknown> & { author?: { id?: unknown }; web_url?: unknown; sha?: unknown }
interface ReviewerEntry {
  user?: Record<string, unknown>
  /** `unreviewed`, `reviewed`, `requested_changes`, `approved`, `unapproved`. */
  state?: string
}

/**
 * Reconcile's read of a merge request, every call through the gate. The merge request's own `reviewers` carry no
 * review state, so who already reviewed would show as waited on again: their states come from /reviewers.
 */
export function readGitlabMergeRequest(client: GitlabClient, gate: HostRateGate, clock: GateClock) {
  return readPullRequestWith(async ({ owner, repo, number }) => {
    const path = `/projects/${projectId(owner, repo)}/merge_requests/${number}`
    const data = await runWaitingOut(gate, clock, () => client.request<MergeRequest>('GET', path))
    const reviewers = await runWaitingOut(gate, clock, () => client.paginate<ReviewerEntry>(`${path}/reviewers`))
    // The API's merge request in a hook's shape: its author is the acting user, so the decoder names them.
    const hook = {
      object_kind: 'merge_request', user: data.author, project: { path_with_namespace: `${owner}/${repo}` },
      reviewers: reviewers.map((r) => ({ ...r.user, state: r.state })),
      object_attributes: { ...data, url: data.web_url, author_id: data.author?.id, action: 'update', last_commit: { id: data.sha } },
    }
    return { what: `GET ${path}`, decoded: decodeGitlab(MERGE_REQUEST_HOOK, 'reconcile', hook) }
  })
}
