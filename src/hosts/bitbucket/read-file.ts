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
  return async ({ owner, repo, ref, path }: { owner: string; repo: string; ref: string; path: string }): Promise<RepositoryFile | undefined> => {
    try {
      const text = await client.getText(`/repositories/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/src/${encodeURIComponent(ref)}/${path.split('/').map(encodeURIComponent).join('/')}`)
      return { sha: createHash('sha256').update(text).digest('hex'), text }
    } catch (error) {
      if (isPrheraldError(error, 'git_host_not_found')) return undefined
      throw error
    }
  }
}
