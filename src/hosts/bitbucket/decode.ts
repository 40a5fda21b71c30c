import type { Actor, Decoded, EventKind, HostComment, Ignored, IgnoreReason } from '../../../machines/pull-request-event.ts'
import { securityUpdate } from '../../../machines/dependency-bump.ts'
import { at, bool, int, obj, str } from '../../read-fields.ts'
import { bitbucketRequested } from '../requested-reviewers.ts'

/** Bitbucket Cloud event keys (`X-Event-Key`) prherald acts on. A Map, so `constructor` is not a key. */
const EVENT_KEYS = new Map<string, EventKind>([
  ['pullrequest:created', 'opened'],
  ['pullrequest:updated', 'updated'],
  ['pullrequest:approved', 'approved'],
  ['pullrequest:unapproved', 'approval_removed'],
  ['pullrequest:changes_request_created', 'changes_requested'],
  ['pullrequest:changes_request_removed', 'changes_request_removed'],
  ['pullrequest:fulfilled', 'merged'],
  ['pullrequest:rejected', 'closed'],
  ['pullrequest:comment_created', 'commented'],
  // Atlassian, "Event payloads": "Comment updated" and "Comment deleted" carry the same `comment` (the mirror's).
  ['pullrequest:comment_updated', 'comment_changed'],
  ['pullrequest:comment_deleted', 'comment_changed'],
])

/** The object that names who acted, per event key; `actor` otherwise. */
function actingUser(kind: EventKind, payload: unknown): unknown {
  switch (kind) {
    case 'approved':
    case 'approval_removed':
      return at(payload, 'approval', 'user') ?? at(payload, 'actor')
    case 'changes_requested':
    case 'changes_request_removed':
      return at(payload, 'changes_request', 'user') ?? at(payload, 'actor')
    case 'commented':
    case 'comment_changed':
      return at(payload, 'comment', 'user') ?? at(payload, 'actor')
    default:
      return at(payload, 'actor')
  }
}

function actorOf(user: unknown): Actor | undefined {
  const login = str(user, 'nickname') ?? str(user, 'display_name') ?? str(user, 'account_id')
  if (!login) return undefined
  // Only `app_user` is a bot: it is what Bitbucket calls the accounts behind Connect/Forge apps and repository,
  // project or workspace access tokens. `team` is a workspace owning a repository, never someone who reviews
  // or comments, so counting it as a bot (or anything but `user` as one) would only mislabel odd payloads.
  const accountId = str(user, 'account_id')
  return { login, isBot: str(user, 'type') === 'app_user', ...(accountId ? { accountId } : {}) }
}

const COMMENT_ACTIONS = new Map<string, HostComment['action']>([
  ['pullrequest:comment_created', 'created'], ['pullrequest:comment_updated', 'edited'], ['pullrequest:comment_deleted', 'deleted'],
])

/**
 * A pull request comment (Bitbucket Cloud REST, "pullrequest_comment"): `content.raw` in Markdown, `inline`
 * (`path`, `to` on the new side, `from` on the old) when it is on the diff, and `parent.id` when it answers
 * another; a reply names its parent (`POST …/pullrequests/{id}/comments` with `parent: { id }`), so the code
 * thread is the comment's parent, or the comment itself when it starts the thread.
 */
function commentOf(eventKey: string, comment: unknown): HostComment | undefined {
  const id = int(comment, 'id')
  const action = COMMENT_ACTIONS.get(eventKey)
  if (id === undefined || !action) return undefined
  const inline = obj(at(comment, 'inline'))
  const path = str(inline, 'path')
  const line = int(inline, 'to') ?? int(inline, 'from')
  const url = str(comment, 'links', 'html', 'href')
  return {
    id: String(id), action, place: inline ? 'code' : 'conversation', body: str(comment, 'content', 'raw') ?? '',
    ...(url ? { url } : {}),
    ...(inline ? { thread: String(int(comment, 'parent', 'id') ?? id), ...(path ? { path } : {}), ...(line === undefined ? {} : { line }) } : {}),
  }
}

/** Decodes a Bitbucket Cloud delivery into a PullRequestEvent or an Ignored. Never throws. */
export function decodeBitbucket(eventKey: string, deliveryId: string, payload: unknown): Decoded {
  const root = obj(payload)
  // `full_name` is "workspace/repo-slug". `repository.name` is not a fallback for the slug: it is the display
  // name ("My Service"), which would never match the routing config, so without full_name the repo is unknown.
  const fullName = str(root, 'repository', 'full_name') ?? ''
  const slash = fullName.indexOf('/')
  const owner = slash > 0 ? fullName.slice(0, slash) : str(root, 'repository', 'workspace', 'slug')
  const repo = slash > 0 && slash < fullName.length - 1 ? fullName.slice(slash + 1) : undefined
  const pr = at(root, 'pullrequest')
  // Number 0 only for prherald-smoke's synthetic pull requests (src/smoke/smoke-pull-request.ts).
  const number = int(pr, 'id')
  const ignored = (reason: IgnoreReason): Ignored => ({ ignored: true, reason, event: eventKey || undefined, owner, repo, number })

  const kind = EVENT_KEYS.get(eventKey)
  if (!kind) return ignored(String(eventKey).startsWith('pullrequest:') ? 'unsupported_action' : 'unsupported_event')
  const title = str(pr, 'title')
  const url = str(pr, 'links', 'html', 'href')
  const author = str(pr, 'author', 'nickname') ?? str(pr, 'author', 'display_name')
  const authorAccountId = str(pr, 'author', 'account_id')
  const createdAt = str(pr, 'created_on')
  const updatedAt = str(pr, 'updated_on')
  const actor = actorOf(actingUser(kind, root))
  if (!owner || !repo || number === undefined || title === undefined || !url || !author || !createdAt || !updatedAt || !actor) return ignored('invalid_payload')
  const state = str(pr, 'state')
  const requested = bitbucketRequested(pr)
  const comment = kind === 'commented' || kind === 'comment_changed' ? commentOf(eventKey, at(root, 'comment')) : undefined
  if (kind === 'comment_changed' && !comment) return ignored('invalid_payload')
  // Every pull request payload names both branches; a retarget arrives as pullrequest:updated.
  const into = str(pr, 'destination', 'branch', 'name')
  const from = str(pr, 'source', 'branch', 'name')
  // The head the message shows, for a review from Slack: `source.commit.hash`, 12 characters in webhooks (the
  // fixtures' "ed0e0bfd9a94"). A comment's copy of the pull request is left out, as on GitLab.
  const head = kind === 'commented' || kind === 'comment_changed' ? undefined : str(pr, 'source', 'commit', 'hash')
  return {
    provider: 'bitbucket', deliveryId, owner, repo, number, kind, actor,
    ...(comment ? { comment } : {}),
    ...(head ? { head } : {}),
    pr: {
      title, url, author, createdAt, updatedAt,
      draft: bool(pr, 'draft') === true,
      state: state === 'MERGED' ? 'merged' : state === 'DECLINED' || state === 'SUPERSEDED' ? 'closed' : 'open',
      // Bitbucket pull requests have no labels; the title and description carry Renovate's markers.
      ...(securityUpdate({ title, labels: [], body: str(pr, 'description') }) ? { securityUpdate: true } : {}),
      ...(authorAccountId ? { authorAccountId } : {}),
      ...(requested ? { requestedReviewers: requested } : {}),
      ...(into ? { into } : {}),
      ...(from ? { from } : {}),
    },
  }
}
