import type { Actor, Decoded, EventKind, Ignored, IgnoreReason, PullRequestFacts } from './pull-request-event.ts'
import { at, bool, int, obj, str, type JsonObject } from './read-fields.ts'

/** The GitHub events and actions prherald acts on; everything else is ignored with a reason. */
const PULL_REQUEST_ACTIONS: Record<string, EventKind | undefined> = {
  opened: 'opened',
  reopened: 'reopened',
  ready_for_review: 'ready_for_review',
  converted_to_draft: 'converted_to_draft',
  edited: 'edited',
  closed: 'closed',
}

const REVIEW_STATES: Record<string, EventKind | undefined> = {
  approved: 'approved',
  changes_requested: 'changes_requested',
  commented: 'commented',
}

function actorOf(user: unknown): Actor | undefined {
  const login = str(user, 'login')
  if (!login) return undefined
  return { login, isBot: str(user, 'type') === 'Bot' || login.endsWith('[bot]') }
}

/** Facts from a `pull_request` object, or from an `issue` that is a pull request (issue_comment). */
function factsOf(pr: JsonObject, url: string | undefined): PullRequestFacts | undefined {
  const title = str(pr, 'title')
  const author = str(pr, 'user', 'login')
  const createdAt = str(pr, 'created_at')
  if (title === undefined || !url || !author || !createdAt) return undefined
  const merged = bool(pr, 'merged') === true
  return {
    title, url, author, createdAt,
    draft: bool(pr, 'draft') === true,
    state: merged ? 'merged' : str(pr, 'state') === 'closed' ? 'closed' : 'open',
  }
}

function kindOf(event: string, payload: JsonObject): EventKind | IgnoreReason {
  const action = str(payload, 'action')
  switch (event) {
    case 'ping':
      return 'ping'
    case 'pull_request': {
      const kind = action === undefined ? undefined : PULL_REQUEST_ACTIONS[action]
      if (kind === 'closed') return bool(payload, 'pull_request', 'merged') === true ? 'merged' : 'closed'
      // Only a title change shows in the message; body and base edits are not news.
      if (kind === 'edited') return at(payload, 'changes', 'title') === undefined ? 'unsupported_action' : 'edited'
      return kind ?? 'unsupported_action'
    }
    case 'pull_request_review':
      if (action === 'dismissed') return 'review_dismissed'
      if (action !== 'submitted') return 'unsupported_action'
      return REVIEW_STATES[(str(payload, 'review', 'state') ?? '').toLowerCase()] ?? 'unsupported_action'
    case 'pull_request_review_comment':
      return action === 'created' ? 'commented' : 'unsupported_action'
    case 'issue_comment':
      if (action !== 'created') return 'unsupported_action'
      return at(payload, 'issue', 'pull_request') === undefined ? 'not_a_pull_request' : 'commented'
    default:
      return 'unsupported_event'
  }
}

const KINDS = new Set<string>(['opened', 'reopened', 'ready_for_review', 'converted_to_draft', 'edited', 'approved',
  'changes_requested', 'commented', 'review_dismissed', 'merged', 'closed'])

/** Decodes a GitHub delivery (`X-GitHub-Event`) into a PullRequestEvent or an Ignored. Never throws. */
export function decodeGithub(eventName: string, deliveryId: string, payload: unknown): Decoded {
  const root = obj(payload)
  const owner = str(root, 'repository', 'owner', 'login')
  const repo = str(root, 'repository', 'name')
  const pr = obj(at(root, 'pull_request')) ?? obj(at(root, 'issue'))
  const number = int(pr, 'number')
  const ignored = (reason: IgnoreReason): Ignored => ({ ignored: true, reason, event: eventName || undefined, owner, repo, number })
  if (!root) return ignored(eventName === 'ping' ? 'ping' : 'invalid_payload')

  const kind = kindOf(eventName, root)
  if (!KINDS.has(kind)) return ignored(kind as IgnoreReason)
  const url = eventName === 'issue_comment' ? (str(pr, 'pull_request', 'html_url') ?? str(pr, 'html_url')) : str(pr, 'html_url')
  const facts = pr && factsOf(pr, url)
  const actingUser = eventName === 'pull_request_review' ? at(root, 'review', 'user')
    : eventName === 'pull_request' ? at(root, 'sender') : at(root, 'comment', 'user')
  const actor = actorOf(actingUser) ?? actorOf(at(root, 'sender'))
  if (!owner || !repo || !number || !facts || !actor) return ignored('invalid_payload')
  return { provider: 'github', deliveryId, owner, repo, number, kind: kind as EventKind, pr: facts, actor }
}
