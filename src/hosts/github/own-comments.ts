import type { CommentApi } from '../talk-back-contract.ts'
import { markedComment } from '../talk-back-http.ts'
import { githubCall, type GithubClient } from './client.ts'

/**
 * Comments as prherald's own GitHub credentials: a token's user, or a GitHub App's installation on the
 * pull request's owner (shown as `<app>[bot]`; the app needs "Pull requests: write" or "Issues: write").
 * Octokit authenticates each call as the owner's installation (app-auth.ts).
 */
export function githubOwnComments(octokit: GithubClient): CommentApi {
  const at = (pr: { owner: string; repo: string }) => ({ owner: pr.owner, repo: pr.repo })
  return {
    createComment: (pr, body) => githubCall(octokit, `POST /repos/${pr.owner}/${pr.repo}/issues/${pr.number}/comments`, async () => {
      const { data } = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...at(pr), issue_number: pr.number, body })
      return { id: String(data.id), url: data.html_url }
    }),
    editComment: (pr, id, body) => githubCall(octokit, `PATCH /repos/${pr.owner}/${pr.repo}/issues/comments/${id}`, async () => {
      await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...at(pr), comment_id: Number(id), body })
    }),
    deleteComment: (pr, id) => githubCall(octokit, `DELETE /repos/${pr.owner}/${pr.repo}/issues/comments/${id}`, async () => {
      try {
        await octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...at(pr), comment_id: Number(id) })
      } catch (error) {
        // Already gone: what was asked is done.
        if ((error as { status?: unknown }).status !== 404) throw error
      }
    }),
    findComment: (pr, marker, since) => githubCall(octokit, `GET /repos/${pr.owner}/${pr.repo}/issues/${pr.number}/comments`, async () => {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...at(pr), issue_number: pr.number, per_page: 100, since: new Date(since).toISOString() })
      return markedComment(data.map((c) => ({ id: String(c.id), body: c.body ?? '' })), marker)
    }),
  }
}
