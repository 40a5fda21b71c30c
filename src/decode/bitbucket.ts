import type { Actor, Decoded, EventKind, Ignored, IgnoreReason } from './pull-request-event.ts'
import { at, bool, int, obj, str } from './read-fields.ts'

/** Bitbucket Cloud event keys (`X-Event-Key`) prherald acts on. */
const EVENT_KEYS: Record<string, EventKind | undefined> = {
  'pullrequest:created': 'opened',
  'pullrequest:updated': 'updated',
  'pullrequest:approved': 'approved',
  'pullrequest:unapproved': 'approval_removed',
  'pullrequest:changes_request_created': 'changes_requested',
  'pullrequest:changes_request_removed': 'changes_request_removed',
  'pullrequest:fulfilled': 'merged',
  'pullrequest:rejected': 'closed',
  'pullrequest:comment_created': 'commented',
}

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
      return at(payload, 'comment', 'user') ?? at(payload, 'actor')
    default:
      return at(payload, 'actor')
  }
}

function actorOf(user: unknown): Actor | undefined {
  const login = str(user, 'nickname') ?? str(user, 'display_name') ?? str(user, 'account_id')
  if (!login) return undefined
  // Bitbucket marks Pipelines, Forge apps and access tokens' bot users as `app_user`.
  return { login, isBot: str(user, 'type') === 'app_user' }
}

/** Decodes a Bitbucket Cloud delivery into a PullRequestEvent or an Ignored. Never throws. */
export function decodeBitbucket(eventKey: string, deliveryId: string, payload: unknown): Decoded {
  const root = obj(payload)
  const fullName = str(root, 'repository', 'full_name') ?? ''
  const slash = fullName.indexOf('/')
  const owner = slash > 0 ? fullName.slice(0, slash) : str(root, 'repository', 'workspace', 'slug')
  const repo = slash > 0 ? fullName.slice(slash + 1) : str(root, 'repository', 'name')
  const pr = at(root, 'pullrequest')
  const number = int(pr, 'id')
  const ignored = (reason: IgnoreReason): Ignored => ({ ignored: true, reason, event: eventKey || undefined, owner, repo, number })

  const kind = EVENT_KEYS[eventKey]
  if (!kind) return ignored(eventKey.startsWith('pullrequest:') ? 'unsupported_action' : 'unsupported_event')
  const title = str(pr, 'title')
  const url = str(pr, 'links', 'html', 'href')
  const author = str(pr, 'author', 'nickname') ?? str(pr, 'author', 'display_name')
  const createdAt = str(pr, 'created_on')
  const actor = actorOf(actingUser(kind, root))
  if (!owner || !repo || !number || title === undefined || !url || !author || !createdAt || !actor) return ignored('invalid_payload')
  const state = str(pr, 'state')
  return {
    provider: 'bitbucket', deliveryId, owner, repo, number, kind, actor,
    pr: {
      title, url, author, createdAt,
      draft: bool(pr, 'draft') === true,
      state: state === 'MERGED' ? 'merged' : state === 'DECLINED' || state === 'SUPERSEDED' ? 'closed' : 'open',
    },
  }
}
