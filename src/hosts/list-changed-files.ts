import type { ChangedFile } from '../routing/route-by-paths.ts'
import type { BitbucketClient } from './bitbucket/client.ts'
import { githubCall, type GithubClient } from './github/client.ts'

/**
 * GitHub's pull-request files endpoint stops at 3000 files whatever the page size, so a larger pull request
 * cannot be seen whole there. Bitbucket is held to the same bound so both providers route alike and one
 * enormous diff cannot hold up a mailbox.
 */
export const MAX_CHANGED_FILES = 3000

export interface PullRequestRef {
  owner: string
  repo: string
  number: number
}

export type ListChangedFiles = (pr: PullRequestRef) => Promise<ChangedFile[]>

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

interface DiffstatEntry {
  old?: { path?: string } | null
  new?: { path?: string } | null
}

/** GET /repositories/{workspace}/{repo}/pullrequests/{id}/diffstat, following `next`. */
export function bitbucketChangedFiles(client: BitbucketClient): ListChangedFiles {
  return async ({ owner, repo, number }) => {
    const path = `/repositories/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pullrequests/${number}/diffstat`
    const entries = await client.paginate<DiffstatEntry>(path, MAX_CHANGED_FILES)
    const files: ChangedFile[] = []
    for (const entry of entries) {
      // Added files have no `old`, removed files no `new`; a removal still concerns the directory it left.
      const current = entry.new?.path ?? entry.old?.path
      if (current === undefined) continue
      const previous = entry.old?.path
      files.push({ path: current, previousPath: previous !== undefined && previous !== current ? previous : undefined })
    }
    return files
  }
}
