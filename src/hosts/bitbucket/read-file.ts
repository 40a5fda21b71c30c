import { createHash } from 'node:crypto'
import { isPrheraldError } from '../../errors.ts'
import type { RepositoryFile } from '../contract.ts'
import type { BitbucketClient } from './client.ts'

/**
 * GET /repositories/{workspace}/{repo_slug}/src/{commit}/{path}: a file's raw content. `{commit}` takes a
 * branch name too, but Atlassian says it "works with branch names that don't include the slash character"
 * (community answer on the src and commit endpoints): such a branch answers 404 and reads as no file, which
 * the routing logs. The answer carries no blob id, so the text's digest stands in for it.
 */
export function bitbucketReadFile(client: BitbucketClient) {
  const at = (owner: string, repo: string) => `/repositories/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`
  return async ({ owner, repo, ref, path }: { owner: string; repo: string; ref?: string | undefined; path: string }): Promise<RepositoryFile | undefined> => {
    try {
      // The default branch is the repository's `mainbranch` (GET /repositories/{workspace}/{repo_slug}, "Get a
      // repository": `mainbranch: { name, type: "branch" }`); /src wants a commit or a branch name.
      const branch = ref ?? (await client.get<{ mainbranch?: { name?: string } }>(at(owner, repo))).mainbranch?.name
      if (branch === undefined) return undefined
      const text = await client.getText(`${at(owner, repo)}/src/${encodeURIComponent(branch)}/${path.split('/').map(encodeURIComponent).join('/')}`)
      return { sha: createHash('sha256').update(text).digest('hex'), text }
    } catch (error) {
      if (isPrheraldError(error, 'git_host_not_found')) return undefined
      throw error
    }
  }
}
