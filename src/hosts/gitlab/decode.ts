import type { Decoded, EventKind, HostComment, Ignored, IgnoreReason, PullRequestFacts } from '../../../machines/pull-request-event.ts'
import { securityUpdate } from '../../../machines/dependency-bump.ts'
import { at, int, obj, str, type JsonObject } from '../../read-fields.ts'
import { gitlabActor, gitlabLabels, gitlabRequested, isDraft, isoTime, projectPath } from './read-gitlab.ts'

/** `X-Gitlab-Event` values prherald reads; the Pipeline Hook has its decoder (decode-pipeline.ts). */
export const MERGE_REQUEST_HOOK = 'Merge Request Hook'
export const NOTE_HOOK = 'Note Hook'

// Maps, not object literals: a lookup by a payload string must not find `constructor` or `__proto__`.
const ACTIONS = new Map<string, EventKind>([
  ['open', 'opened'],
  ['reopen', 'reopened'],
  ['close', 'closed'],
  ['merge', 'merged'],
  // `approval`/`unapproval`: one person's; `approved`/`unapproved`: the rule is (un)met. Both name who acted.
  ['approval', 'approved'],
  ['approved', 'approved'],
  ['unapproval', 'approval_removed'],
  ['unapproved', 'approval_removed'],
])

/** What an `update` changed, from its `changes`: the one visible change, else a plain update. */
function updateKind(root: JsonObject, mr: unknown): EventKind {
  const changes = obj(at(root, 'changes'))
  const draft = at(changes, 'draft', 'current')
  if (draft === true) return 'converted_to_draft'
  if (draft === false) return 'ready_for_review'
  // A reviewer asked for changes (GitLab 17.x "Request changes"): their entry's state now says so.
  const userId = at(root, 'user', 'id')
  const current = at(changes, 'reviewers', 'current')
  if (Array.isArray(current) && current.some((r) => at(r, 'id') === userId && str(r, 'state') === 'requested_changes')) return 'changes_requested'
  if (obj(at(changes, 'reviewers'))) return 'review_requested'
  if (obj(at(changes, 'title'))) return 'edited'
  // `oldrev` is present only when commits were pushed: the head moved, its checks start over.
  return str(mr, 'oldrev') ? 'synchronize' : 'updated'
}

/** The merge request's facts; `author` only when the acting user is the author (hooks carry only author_id). */
function factsOf(root: JsonObject, mr: unknown): PullRequestFacts | undefined {
  const title = str(mr, 'title')
  // A note's merge request may come without `url` (GitLab's own example): the note's URL less its anchor is the page.
  const url = str(mr, 'url') ?? str(root, 'object_attributes', 'url')?.replace(/#note_\d+$/, '')
  const createdAt = isoTime(str(mr, 'created_at'))
  const updatedAt = isoTime(str(mr, 'updated_at'))
  if (title === undefined || !url || !createdAt || !updatedAt) return undefined
  const authorId = at(mr, 'author_id')
  const author = authorId !== undefined && authorId === at(root, 'user', 'id') ? str(root, 'user', 'username') ?? '' : ''
  const state = str(mr, 'state')
  const labels = gitlabLabels(root)
  const requested = str(root, 'object_kind') === 'merge_request' ? gitlabRequested(root) : undefined
  // Both hooks carry the branches (the Note Hook in its merge_request); an update that retargets names
  // `changes.target_branch` and the new value is already here.
  const into = str(mr, 'target_branch')
  const from = str(mr, 'source_branch')
  return {
    title, url, author, createdAt, updatedAt,
    draft: isDraft(mr, title),
    state: state === 'merged' ? 'merged' : state === 'closed' || state === 'locked' ? 'closed' : 'open',
    ...(securityUpdate({ title, labels: labels ?? [], body: str(mr, 'description') }) ? { securityUpdate: true } : {}),
    ...(requested ? { requestedReviewers: requested } : {}),
    ...(labels === undefined ? { labelsUnknown: true } : labels.length > 0 ? { labels } : {}),
    ...(into ? { into } : {}),
    ...(from ? { from } : {}),
  }
}

/** Decodes a Merge Request Hook or a Note Hook into a PullRequestEvent or an Ignored. Never throws. */
export function decodeGitlab(eventName: string, deliveryId: string, payload: unknown): Decoded {
  const root = obj(payload)
  const { owner, repo } = projectPath(root)
  const isNote = eventName === NOTE_HOOK
  const mr = isNote ? at(root, 'merge_request') : at(root, 'object_attributes')
  const number = int(mr, 'iid')
  const ignored = (reason: IgnoreReason): Ignored => ({ ignored: true, reason, event: eventName || undefined, owner, repo, number })
  if (eventName !== MERGE_REQUEST_HOOK && !isNote) return ignored('unsupported_event')
  if (!root) return ignored('invalid_payload')

  let kind: EventKind | undefined
  if (isNote) {
    if (str(root, 'object_attributes', 'noteable_type') !== 'MergeRequest') return ignored('not_a_pull_request')
    // A system note ("added 1 commit") is no comment. GitLab Docs, "Webhook events", Comment events:
    // `object_attributes.action` is `create` or `update` (16.11+; older servers send only creates, without it).
    // GitLab sends nothing when a comment is deleted.
    const action = str(root, 'object_attributes', 'action') ?? 'create'
    if (at(root, 'object_attributes', 'system') === true || (action !== 'create' && action !== 'update')) return ignored('unsupported_action')
    kind = action === 'create' ? 'commented' : 'comment_changed'
  } else {
    const action = str(mr, 'action')
    if (action === undefined) return ignored('invalid_payload')
    kind = action === 'update' ? updateKind(root, mr) : ACTIONS.get(action)
    if (!kind) return ignored('unsupported_action')
  }
  const facts = factsOf(root, mr)
  const actor = gitlabActor(at(root, 'user'))
  if (!owner || !repo || number === undefined || !facts || !actor) return ignored('invalid_payload')
  // Only merge request hooks move the head: a note's copy of the merge request may be older than the last push.
  const head = isNote ? undefined : str(mr, 'last_commit', 'id')
  const comment = isNote ? noteOf(root) : undefined
  if (kind === 'comment_changed' && !comment) return ignored('invalid_payload')
  return {
    provider: 'gitlab', deliveryId, owner, repo, number, kind, pr: facts, actor,
    reference: `MR !${number}`,
    ...(head ? { head } : {}),
    ...(comment ? { comment } : {}),
  }
}

/**
 * A Note Hook's comment, for the mirror. A comment on the diff is a `DiffNote` with a `position` (`new_path`,
 * `new_line`; `old_path`, `old_line` on a removed line); every note names its `discussion_id`, where a reply goes
 * (GitLab Docs, Discussions API: "Add note to existing merge request thread",
 * `POST /projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes`).
 */
function noteOf(root: JsonObject): HostComment | undefined {
  const note = at(root, 'object_attributes')
  const id = int(note, 'id')
  if (id === undefined) return undefined
  const position = at(note, 'position')
  const code = str(note, 'type') === 'DiffNote' && obj(position) !== undefined
  const path = str(position, 'new_path') ?? str(position, 'old_path')
  const line = int(position, 'new_line') ?? int(position, 'old_line')
  const url = str(note, 'url')
  const discussion = str(note, 'discussion_id')
  return {
    id: String(id), action: str(note, 'action') === 'update' ? 'edited' : 'created', place: code ? 'code' : 'conversation', body: str(note, 'note') ?? '',
    ...(url ? { url } : {}),
    ...(code && path ? { path } : {}),
    ...(code && line !== undefined ? { line } : {}),
    ...(code && discussion ? { thread: discussion } : {}),
  }
}
