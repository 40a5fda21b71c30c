import { MAX_CHANGED_FILES, type ChangedFile, type ListChangedFiles } from '../list-changed-files.ts'
import { projectId, type GitlabClient } from './client.ts'

interface DiffEntry {
  old_path?: string
  new_path?: string
}

/** GET /projects/:id/merge_requests/:iid/diffs (GitLab 15.7 and later), 100 per page. */
export function gitlabChangedFiles(client: GitlabClient): ListChangedFiles {
  return async ({ owner, repo, number }) => {
    const entries = await client.paginate<DiffEntry>(`/projects/${projectId(owner, repo)}/merge_requests/${number}/diffs`, MAX_CHANGED_FILES)
    return entries.flatMap((entry): ChangedFile[] => {
      // A deleted file keeps its path in new_path too; a rename names both.
      const current = entry.new_path ?? entry.old_path
      if (current === undefined) return []
      return [{ path: current, previousPath: entry.old_path !== undefined && entry.old_path !== current ? entry.old_path : undefined }]
    })
  }
}
