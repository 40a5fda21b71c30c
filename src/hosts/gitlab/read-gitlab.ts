import type { Actor, Reviewer } from '../../../machines/pull-request-event.ts'
import { at, str } from '../../read-fields.ts'

/**
 * Readers shared by GitLab's hook decoders. Pure; a field of the wrong shape reads as absent.
 */

/** `group/subgroup/project` → owner `group/subgroup`, repo `project`: a project's path never holds a slash. */
export function projectPath(payload: unknown): { owner: string | undefined; repo: string | undefined } {
  const full = str(payload, 'project', 'path_with_namespace') ?? ''
  const slash = full.lastIndexOf('/')
  return slash > 0 && slash < full.length - 1 ? { owner: full.slice(0, slash), repo: full.slice(slash + 1) } : { owner: undefined, repo: undefined }
}

/** Hooks write times as `2015-05-17 18:21:36 UTC`, the API as ISO-8601; both become ISO-8601. */
export function isoTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const hook = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC$/.exec(value)
  const iso = hook ? `${hook[1]}T${hook[2]}Z` : value
  return Number.isNaN(Date.parse(iso)) ? undefined : iso
}

/**
 * Bot accounts GitLab creates for project and group access tokens (`project_42_bot_<hash>`, `group_7_bot`), and
 * service accounts (`service_account_…`); a human's username never has these forms.
 */
const BOT_USERNAME = /^(?:(?:project|group)_\d+_bot(?:_[0-9a-f]+)?|service_account_.+)$/i

export function gitlabActor(user: unknown): Actor | undefined {
  const login = str(user, 'username')
  return login ? { login, isBot: BOT_USERNAME.test(login) } : undefined
}

/** A reviewer's state once they reviewed (GitLab 16.x and later send it): no longer waited on. */
const REVIEWED = new Set(['reviewed', 'approved', 'requested_changes'])

/** `reviewers` of a merge request hook (or the API's merge request), less those who reviewed; undefined without the list. */
export function gitlabRequested(payload: unknown): Reviewer[] | undefined {
  const reviewers = at(payload, 'reviewers')
  if (!Array.isArray(reviewers)) return undefined
  return reviewers.flatMap((r: unknown): Reviewer[] => {
    const login = str(r, 'username')
    return login && !REVIEWED.has(str(r, 'state') ?? '') ? [{ type: 'user', login }] : []
  })
}

/** Draft: the `draft` field (GitLab 13.x and later), else the older `work_in_progress`, or a draft title prefix. */
const DRAFT_TITLE = /^\s*(?:\[draft\]|\(draft\)|draft:|draft\s*-)/i

export function isDraft(mr: unknown, title: string): boolean {
  const flag = at(mr, 'draft') ?? at(mr, 'work_in_progress')
  return flag === true || DRAFT_TITLE.test(title)
}

const titles = (list: unknown): string[] | undefined => Array.isArray(list) ? list.flatMap((l: unknown) => str(l, 'title') ?? []) : undefined

/**
 * The merge request's labels by title, for `ignore.labels`: an update that changed them says so in
 * `changes.labels.current` (the labels after it), else the hook's `labels`. A Note Hook carries none: undefined.
 */
export function gitlabLabels(root: unknown): string[] | undefined {
  return titles(at(root, 'changes', 'labels', 'current')) ?? titles(at(root, 'labels'))
}
