import { isPrheraldError } from '../../errors.ts'
import type { RepositoryFile } from '../contract.ts'
import { githubCall, type GithubClient } from './client.ts'

/**
 * GET /repos/{owner}/{repo}/contents/{path}?ref= ("Get repository content"): for a file, `type: "file"`,
 * `encoding: "base64"`, `content` and the blob's `sha`. A missing file answers 404. Without `ref`, "Default: the
 * repository's default branch".
 */
export function githubReadFile(octokit: GithubClient) {
  return async ({ owner, repo, ref, path }: { owner: string; repo: string; ref?: string | undefined; path: string }): Promise<RepositoryFile | undefined> => {
    try {
      return await githubCall(octokit, `GET /repos/${owner}/${repo}/contents/${path}`, async () => {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { owner, repo, path, ...(ref === undefined ? {} : { ref }) })
        if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) return undefined
        return { sha: data.sha, text: Buffer.from(data.content, 'base64').toString('utf8') }
      })
    } catch (error) {
      if (isPrheraldError(error, 'git_host_not_found')) return undefined
      throw error
    }
  }
}

/** GET /orgs/{org}/teams/{team_slug}/members ("List team members": "Team members will include the members of child teams"). */
export function githubTeamMembers(octokit: GithubClient) {
  return (owner: string, slug: string): Promise<string[]> => githubCall(octokit, `GET /orgs/${owner}/teams/${slug}/members`, () =>
    octokit.paginate('GET /orgs/{org}/teams/{team_slug}/members', { org: owner, team_slug: slug, per_page: 100 }, (response) => response.data.map((m) => m.login)))
}
