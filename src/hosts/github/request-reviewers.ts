import type { PullRequestAddress } from '../contract.ts'
import { githubCall, type GithubClient } from './client.ts'

/**
 * GitHub's "Request reviewers for a pull request" (docs.github.com/rest/pulls/review-requests):
 * `POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers` with `reviewers`, "An array of user
 * `login`s that will be requested", answered 201. It adds to the pull request's requests ("Pull request
 * authors and repository owners and collaborators can request a pull request review from anyone with write
 * access to the repository"), so those asked already stay asked and asking one again is harmless.
 */
export function githubRequestReviewers(octokit: GithubClient) {
  return async (pr: PullRequestAddress, reviewers: readonly string[]): Promise<void> => {
    const what = `POST /repos/${pr.owner}/${pr.repo}/pulls/${pr.number}/requested_reviewers`
    await githubCall(octokit, what, () => octokit.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', {
      owner: pr.owner, repo: pr.repo, pull_number: pr.number, reviewers: [...reviewers],
    }))
  }
}
