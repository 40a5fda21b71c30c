import { MAX_CHANGED_FILES, type ChangedFile, type ListChangedFiles } from '../list-changed-files.ts'
import { githubCall, type GithubClient } from './client.ts'

/** GET /repos/{owner}/{repo}/pulls/{n}/files, 100 per page, stopping once MAX_CHANGED_FILES are in. */
export function githubChangedFiles(octokit: GithubClient): ListChangedFiles {
  return async ({ owner, repo, number }) => {
    let seen = 0
    const files = await githubCall(octokit, `GET /repos/${owner}/${repo}/pulls/${number}/files`, () =>
      octokit.paginate(octokit.rest.pulls.listFiles, { owner, repo, pull_number: number, per_page: 100 }, (response, done) => {
        seen += response.data.length
        if (seen >= MAX_CHANGED_FILES) done()
        return response.data.map((f): ChangedFile => ({ path: f.filename, previousPath: f.previous_filename }))
      }))
    return files.slice(0, MAX_CHANGED_FILES)
  }
}

