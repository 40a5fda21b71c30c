import type { PullRequestAddress } from './contract.ts'

/**
 * GitHub's pull-request files endpoint stops at 3000 files whatever the page size, so a larger pull request
 * cannot be seen whole there. Bitbucket is held to the same bound so both providers route alike and one
 * enormous diff cannot hold up a mailbox.
 */
export const MAX_CHANGED_FILES = 3000

export type ListChangedFiles = (pr: PullRequestAddress) => Promise<ChangedFile[]>

/** One changed file of a pull request. A rename or move carries the path it had before. */
export interface ChangedFile {
  path: string
  previousPath?: string | undefined
}
