import type { Actor, Decoded, EventKind, HostComment, Ignored, IgnoreReason, PullRequestFacts } from '../../../machines/pull-request-event.ts'
import { securityUpdate } from '../../../machines/dependency-bump.ts'
import { at, bool, int, obj, str, type JsonObject } from '../../read-fields.ts'
import { githubRequested, githubTeam, githubUser } from '../requested-reviewers.ts'

/** Either the kind of change a delivery announces, or why it is not one prherald acts on. */
type Verdict = { kind: EventKind } | { reason: IgnoreReason }

// Maps, not object literals: a lookup by a payload string must not find `constructor` or `__proto__`.
const PULL_REQUEST_ACTIONS = new Map<string, EventKind>([
  ['opened', 'opened'],
  ['reopened', 'reopened'],
  ['ready_for_review', 'ready_for_review'],
  ['converted_to_draft', 'converted_to_draft'],
  ['synchronize', 'synchronize'],
  ['review_requested', 'review_requested'],
  ['review_request_removed', 'review_request_removed'],
  // Labels show nowhere in the message, but decide `ignore.labels`: a pull request unlabeled before its
  // announcement is announced then (an update of a ready pull request without a message announces it).
  ['labeled', 'updated'],
  ['unlabeled', 'updated'],
])

const REVIEW_STATES = new Map<string, EventKind>([
  ['approved', 'approved'],
  ['changes_requested', 'changes_requested'],
  ['commented', 'commented'],
])

/** issue_comment and pull_request_review_comment: "edited" and "deleted" besides "created" (GitHub Docs, webhook events). */
const COMMENT_CHANGES = new Set(['edited', 'deleted'])

/** The events whose payloads always carry `action`; its absence means the payload is not what it claims. */
const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_review', 'pull_request_review_comment', 'issue_comment'])

function verdictOf(event: string, payload: JsonObject): Verdict {
  if (event === 'ping') return { reason: 'ping' }
  if (!PULL_REQUEST_EVENTS.has(event)) return { reason: 'unsupported_event' }
  const action = str(payload, 'action')
  if (action === undefined) return { reason: 'invalid_payload' }
  const unsupported: Verdict = { reason: 'unsupported_action' }
  switch (event) {
    case 'pull_request': {
      if (action === 'closed') return { kind: bool(payload, 'pull_request', 'merged') === true ? 'merged' : 'closed' }
      // A title change shows in the message; a new base branch decides `only.into`/`ignore.into` (an update
      // announces a pull request that starts to match). A body edit is not news.
      if (action === 'edited') {
        if (obj(at(payload, 'changes', 'title'))) return { kind: 'edited' }
        return obj(at(payload, 'changes', 'base')) ? { kind: 'updated' } : unsupported
      }
      const kind = PULL_REQUEST_ACTIONS.get(action)
      return kind ? { kind } : unsupported
    }
    case 'pull_request_review': {
      // "edited: The body of a review has been edited" (GitHub Docs, webhook events, pull_request_review): the mirror's.
      if (action === 'edited') return obj(at(payload, 'review')) ? { kind: 'comment_changed' } : { reason: 'invalid_payload' }
      // A dismissal names the review it withdraws (and whose): without it there is nothing to take back.
      if (action === 'dismissed') return obj(at(payload, 'review')) ? { kind: 'review_dismissed' } : { reason: 'invalid_payload' }
      // Webhooks send the state lower-case, the REST API upper-case; accept both.
      const kind = action === 'submitted' ? REVIEW_STATES.get((str(payload, 'review', 'state') ?? '').toLowerCase()) : undefined
      return kind ? { kind } : unsupported
    }
    case 'pull_request_review_comment':
      // Actions `created`, `edited`, `deleted` (GitHub Docs, webhook events, pull_request_review_comment).
      return action === 'created' ? { kind: 'commented' } : COMMENT_CHANGES.has(action) ? { kind: 'comment_changed' } : unsupported
    default: { // issue_comment: issues and pull requests share one comment thread and one event.
      const kind = action === 'created' ? 'commented' : COMMENT_CHANGES.has(action) ? 'comment_changed' : undefined
      if (!kind) return unsupported
      if (!obj(at(payload, 'issue'))) return { reason: 'invalid_payload' }
      return obj(at(payload, 'issue', 'pull_request')) ? { kind } : { reason: 'not_a_pull_request' }
    }
  }
}

function actorOf(user: unknown): Actor | undefined {
  const login = str(user, 'login')
  if (!login) return undefined
  return { login, isBot: str(user, 'type') === 'Bot' || login.endsWith('[bot]') }
}

/**
 * The person the event is about. For a dismissal that is the reviewer whose verdict is withdrawn (the
 * machine forgets *their* approval), not the sender who dismissed it.
 */
function actingUser(event: string, payload: JsonObject): unknown {
  if (event === 'pull_request_review') return at(payload, 'review', 'user')
  if (event === 'pull_request_review_comment' || event === 'issue_comment') return at(payload, 'comment', 'user')
  return at(payload, 'sender')
}

/** Facts from a `pull_request`, or from the `issue` of an issue_comment on a pull request. */
function factsOf(pr: JsonObject | undefined, isIssue: boolean): PullRequestFacts | undefined {
  const title = str(pr, 'title')
  // issue_comment names the pull request's own page in issue.pull_request; the issue's page is the fallback.
  const url = (isIssue ? str(pr, 'pull_request', 'html_url') : undefined) ?? str(pr, 'html_url')
  const author = str(pr, 'user', 'login')
  const createdAt = str(pr, 'created_at')
  // issue_comment: the issue's updated_at is the pull request's (they are one object on GitHub).
  const updatedAt = str(pr, 'updated_at')
  if (title === undefined || !url || !author || !createdAt || !updatedAt) return undefined
  const labelList = at(pr, 'labels')
  const labels = Array.isArray(labelList) ? labelList.flatMap((l: unknown) => str(l, 'name') ?? []) : []
  // An issue_comment's issue has no review requests: absent, not empty, so it clears nobody.
  const requested = isIssue ? undefined : githubRequested(pr)
  const merged = isIssue ? typeof at(pr, 'pull_request', 'merged_at') === 'string' : bool(pr, 'merged') === true
  // An issue_comment's issue names no branches.
  const into = isIssue ? undefined : str(pr, 'base', 'ref')
  const from = isIssue ? undefined : str(pr, 'head', 'ref')
  return {
    title, url, author, createdAt, updatedAt,
    draft: bool(pr, 'draft') === true,
    state: merged ? 'merged' : str(pr, 'state') === 'closed' ? 'closed' : 'open',
    // Set only when true: the stored event stays as it was for every other pull request.
    ...(securityUpdate({ title, labels, body: str(pr, 'body') }) ? { securityUpdate: true } : {}),
    ...(requested ? { requestedReviewers: requested } : {}),
    ...(labels.length > 0 ? { labels } : {}),
    ...(into ? { into } : {}),
    ...(from ? { from } : {}),
  }
}

const ACTIONS_OF_COMMENTS = new Map<string, HostComment['action']>([['created', 'created'], ['submitted', 'created'], ['edited', 'edited'], ['deleted', 'deleted']])

/**
 * The comment a delivery carries, for the mirror: an issue comment (`comment`, on the conversation), a review
 * comment (`comment`, on a line: `path`, `line`, and `in_reply_to_id` when it answers another; GitHub Docs, REST
 * "Pull request review comments": replies go to "the ID of a top-level review comment, not a reply to that
 * comment"), or a review's body (`review.body`, null when the review has none: no comment then).
 */
function commentOf(event: string, payload: JsonObject): HostComment | undefined {
  const action = ACTIONS_OF_COMMENTS.get(str(payload, 'action') ?? '')
  if (!action) return undefined
  if (event === 'pull_request_review') {
    const body = str(payload, 'review', 'body')
    const id = int(payload, 'review', 'id')
    if (!body || id === undefined) return undefined
    return { id: String(id), action, place: 'review', body, ...urlOf(str(payload, 'review', 'html_url')) }
  }
  const id = int(payload, 'comment', 'id')
  if (id === undefined) return undefined
  const common = { id: String(id), action, body: str(payload, 'comment', 'body') ?? '', ...urlOf(str(payload, 'comment', 'html_url')) }
  if (event === 'issue_comment') return { ...common, place: 'conversation' }
  const line = int(payload, 'comment', 'line') ?? int(payload, 'comment', 'original_line')
  const path = str(payload, 'comment', 'path')
  return { ...common, place: 'code', thread: String(int(payload, 'comment', 'in_reply_to_id') ?? id), ...(path ? { path } : {}), ...(line === undefined ? {} : { line }) }
}

const urlOf = (url: string | undefined) => (url ? { url } : {})

/** Decodes a GitHub delivery (`X-GitHub-Event`) into a PullRequestEvent or an Ignored. Never throws. */
export function decodeGithub(eventName: string, deliveryId: string, payload: unknown): Decoded {
  const root = obj(payload)
  const isIssue = eventName === 'issue_comment'
  const pr = obj(at(root, isIssue ? 'issue' : 'pull_request'))
  const owner = str(root, 'repository', 'owner', 'login')
  const repo = str(root, 'repository', 'name')
  const number = int(pr, 'number')
  const ignored = (reason: IgnoreReason): Ignored => ({ ignored: true, reason, event: eventName || undefined, owner, repo, number })
  if (!root) return ignored(eventName === 'ping' ? 'ping' : 'invalid_payload')

  const verdict = verdictOf(eventName, root)
  if ('reason' in verdict) return ignored(verdict.reason)
  const facts = factsOf(pr, isIssue)
  const actor = actorOf(actingUser(eventName, root)) ?? actorOf(at(root, 'sender'))
  if (!owner || !repo || number === undefined || !facts || !actor) return ignored('invalid_payload')
  // Only `pull_request` events move the head: a review's copy of the pull request may be older than the last push.
  const head = eventName === 'pull_request' ? str(pr, 'head', 'sha') : undefined
  const event = { provider: 'github', deliveryId, owner, repo, number, kind: verdict.kind, pr: facts, actor, ...(head ? { head } : {}) } as const
  if (verdict.kind === 'review_requested' || verdict.kind === 'review_request_removed') {
    // One of the two, per GitHub's schema: a person, or a team (whose members may get their own deliveries).
    const reviewer = githubUser(at(root, 'requested_reviewer')) ?? githubTeam(at(root, 'requested_team'))
    return reviewer ? { ...event, reviewer } : ignored('invalid_payload')
  }
  const comment = eventName === 'pull_request' ? undefined : commentOf(eventName, root)
  // A review edited to no body has nothing to show; a comment's edit without its comment is malformed.
  if (verdict.kind === 'comment_changed') return comment ? { ...event, comment } : ignored(eventName === 'pull_request_review' ? 'unsupported_action' : 'invalid_payload')
  if (eventName !== 'pull_request_review') return comment ? { ...event, comment } : event
  // The review's own id: a dismissal names the review it withdraws, so a replayed approval of it is refused.
  const reviewId = int(root, 'review', 'id')
  const reviewed = { ...event, ...(reviewId === undefined ? {} : { reviewId: String(reviewId) }), ...(comment && verdict.kind !== 'review_dismissed' ? { comment } : {}) }
  return verdict.kind === 'review_dismissed' ? reviewed : { ...reviewed, submittedReview: true }
}
