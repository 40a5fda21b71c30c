import { MAX_CHANGED_FILES, type ChangedFile, type ListChangedFiles } from '../list-changed-files.ts'
import type { BitbucketClient } from './client.ts'

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
