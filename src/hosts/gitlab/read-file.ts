import { isPrheraldError } from '../../errors.ts'
import type { RepositoryFile } from '../contract.ts'
import { projectId, type GitlabClient } from './client.ts'

/**
 * GET /projects/:id/repository/files/:file_path?ref= ("Get file from repository"): `file_path` URL-encoded;
 * "the file content is Base64 encoded" in `content`, with the blob's `blob_id`. A missing file answers 404.
 * `ref` is required; the default branch is `HEAD` (the same page: "Use HEAD to automatically use the default branch").
 */
export function gitlabReadFile(client: GitlabClient) {
  return async ({ owner, repo, ref = 'HEAD', path }: { owner: string; repo: string; ref?: string | undefined; path: string }): Promise<RepositoryFile | undefined> => {
    try {
      const file = await client.request<{ blob_id?: string; content?: string; encoding?: string }>(
        'GET', `/projects/${projectId(owner, repo)}/repository/files/${encodeURIComponent(path)}?ref=${encodeURIComponent(ref)}`)
      if (file.content === undefined || file.blob_id === undefined) return undefined
      return { sha: file.blob_id, text: Buffer.from(file.content, file.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8') }
    } catch (error) {
      if (isPrheraldError(error, 'git_host_not_found')) return undefined
      throw error
    }
  }
}
