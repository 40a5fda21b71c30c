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
    inThread: (thread) => githubOwnThreadComments(octokit, thread),
  }
}

/**
 * One code thread's review comments as prherald's own credentials (a thread reply of someone not linked that links
 * to a mirrored code comment): review comments are "different from commit comments and issue comments in a pull
 * request" (REST "Pull request review comments"), so they live at /pulls/comments, and a reply is made with
 * "Create a reply for a review comment" on the thread's top-level comment.
 */
function githubOwnThreadComments(octokit: GithubClient, thread: string): CommentApi {
  const at = (pr: { owner: string; repo: string }) => ({ owner: pr.owner, repo: pr.repo })
  return {
    createComment: (pr, body) => githubCall(octokit, `POST /repos/${pr.owner}/${pr.repo}/pulls/${pr.number}/comments/${thread}/replies`, async () => {
      const { data } = await octokit.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies', { ...at(pr), pull_number: pr.number, comment_id: Number(thread), body })
      return { id: String(data.id), url: data.html_url }
    }),
    editComment: (pr, id, body) => githubCall(octokit, `PATCH /repos/${pr.owner}/${pr.repo}/pulls/comments/${id}`, async () => {
      await octokit.request('PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}', { ...at(pr), comment_id: Number(id), body })
    }),
    deleteComment: (pr, id) => githubCall(octokit, `DELETE /repos/${pr.owner}/${pr.repo}/pulls/comments/${id}`, async () => {
      try {
        await octokit.request('DELETE /repos/{owner}/{repo}/pulls/comments/{comment_id}', { ...at(pr), comment_id: Number(id) })
      } catch (error) {
        if ((error as { status?: unknown }).status !== 404) throw error
      }
    }),
    findComment: (pr, marker, since) => githubCall(octokit, `GET /repos/${pr.owner}/${pr.repo}/pulls/${pr.number}/comments`, async () => {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', { ...at(pr), pull_number: pr.number, per_page: 100, since: new Date(since).toISOString() })
      return markedComment(data.map((c) => ({ id: String(c.id), body: c.body ?? '' })), marker)
    }),
  }
}
