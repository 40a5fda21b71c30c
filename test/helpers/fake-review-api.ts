import type { ServerResponse } from 'node:http'
import type { FakeAccount, FakeHostKind } from './fake-oauth.ts'
import { sendJson } from './http-fake.ts'

/** What a linked person did at the fake host, by pull request key `owner/repo#n`. */
export interface ReviewApiState {
  /** `thread`: the code thread a reply went to (GitHub's top-level comment, GitLab's discussion, Bitbucket's parent). */
  comments: Array<{ id: number; pr: string; body: string; author: string; deleted: boolean; thread?: string }>
  reviews: Array<{ pr: string; kind: 'approve' | 'request_changes' | 'comment'; body?: string; sha?: string; author: string }>
  /** The head commit per pull request: a review for another one is refused (GitHub 422, GitLab 409). */
  heads: Map<string, string>
  /** GitLab: the merge request's `reviewers` (usernames) per pull request; none unless set. */
  reviewers: Map<string, string[]>
  /**
   * GitLab: draft notes (pending review comments), each visible to its author alone. bulk_publish publishes all of
   * the caller's on the merge request ("Publish every pending review comment you created on a merge request").
   */
  drafts: Array<{ id: number; pr: string; note: string; author: string }>
  /** The author per pull request: approving one's own is refused in the host's words. */
  authors: Map<string, string>
  /** GET /version (GitLab). */
  gitlabVersion: string
  /** The next so many comment creations answer 503. */
  failComments: number
  /** The next so many comment creations are made, and their answer is lost (the connection closes). */
  loseCommentAnswers: number
  /** The next so many listings of a pull request's comments answer 503. */
  failCommentLists: number
  /** Comment creations are refused with these words (a locked conversation), in the host's shape. */
  refuseComments: string | undefined
}

let nextId = 1000

type Route = { pr: string; rest: string }

/** The pull request and what follows it in the path, per host. */
function route(kind: FakeHostKind, path: string): Route | undefined {
  const pattern = {
    github: /^\/repos\/([^/]+)\/([^/]+)\/(?:issues|pulls)\/(\d+)(\/.*)$/,
    gitlab: /^\/projects\/([^/]+)()\/merge_requests\/(\d+)(\/.*)$/,
    bitbucket: /^\/repositories\/([^/]+)\/([^/]+)\/pullrequests\/(\d+)(\/.*)$/,
  }[kind]
  const m = pattern.exec(path)
  if (!m) return undefined
  const repo = kind === 'gitlab' ? decodeURIComponent(m[1]!) : `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`
  return { pr: `${repo}#${m[3]}`, rest: m[4]! }
}

export function handleReviewApi(kind: FakeHostKind, state: ReviewApiState, account: FakeAccount, method: string, path: string, body: Record<string, unknown>, res: ServerResponse): void {
  if (method === 'GET' && path === '/user') {
    if (kind === 'github') return sendJson(res, 200, { login: account.login, id: 1, name: account.name ?? null })
    if (kind === 'gitlab') return sendJson(res, 200, { id: 1, username: account.login, name: account.name ?? account.login })
    return sendJson(res, 200, { account_id: account.accountId, nickname: account.login, display_name: account.name })
  }
  if (kind === 'gitlab' && method === 'GET' && path === '/version') return sendJson(res, 200, { version: state.gitlabVersion, revision: 'abc' })
  // The pull request itself: its head (GitHub `head.sha`, GitLab `sha` and `reviewers`, Bitbucket `source.commit.hash`).
  const pull = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(path) ?? /^\/projects\/([^/]+)\/merge_requests\/(\d+)$/.exec(path)
    ?? /^\/repositories\/([^/]+)\/([^/]+)\/pullrequests\/(\d+)$/.exec(path)
  if (pull && method === 'GET') {
    const key = kind === 'gitlab' ? `${decodeURIComponent(pull[1]!)}#${pull[2]}` : `${decodeURIComponent(pull[1]!)}/${decodeURIComponent(pull[2]!)}#${pull[3]}`
    const head = state.heads.get(key)
    if (kind === 'gitlab') {
      const reviewers = (state.reviewers.get(key) ?? []).map((username, i) => ({ id: 100 + i, username, name: username, state: 'active' }))
      return sendJson(res, 200, { iid: Number(pull[2]), reviewers, ...(head ? { sha: head } : {}) })
    }
    return sendJson(res, 200, kind === 'github' ? { number: Number(pull[3]), ...(head ? { head: { sha: head } } : {}) }
      : { type: 'pullrequest', id: Number(pull[3]), ...(head ? { source: { commit: { type: 'commit', hash: head } } } : {}) })
  }
  // GitHub edits and deletes a comment by its id alone: an issue comment at /issues/comments, a review comment (one
  // in a code thread) at /pulls/comments; each is "different from" the other (REST "Pull request review comments").
  const byId = kind === 'github' ? /^\/repos\/[^/]+\/[^/]+\/(issues|pulls)\/comments\/(\d+)$/.exec(path) : null
  const at = route(kind, path)
  // GitLab edits and deletes a thread's note at …/discussions/:discussion_id/notes/:note_id (Discussions API) too.
  const inDiscussion = kind === 'gitlab' && at ? /^\/discussions\/(\w+)\/notes\/(\d+)$/.exec(at.rest) : null
  const commentId = byId?.[2] ?? inDiscussion?.[2] ?? (at && /^\/(?:notes|comments)\/(\d+)$/.exec(at.rest)?.[1])
  const text = kind === 'bitbucket' ? String((body.content as { raw?: unknown } | undefined)?.raw ?? '') : String(body.body ?? '')
  if (commentId !== undefined && commentId !== null) {
    const comment = state.comments.find((c) => String(c.id) === commentId && !c.deleted
      && (byId === null || (byId[1] === 'pulls') === (c.thread !== undefined)) && (inDiscussion === null || c.thread === inDiscussion[1]))
    if (!comment) return sendJson(res, 404, kind === 'bitbucket' ? { type: 'error', error: { message: 'No such comment' } } : { message: 'Not Found' })
    if (comment.author !== account.login) return sendJson(res, 403, { message: 'You can only change your own comments' })
    if (method === 'DELETE') {
      comment.deleted = true
      return void res.writeHead(204).end()
    }
    comment.body = text
    return sendJson(res, 200, { id: comment.id })
  }
  if (at && method === 'GET' && (at.rest === '/comments' || at.rest === '/notes')) {
    if (state.failCommentLists > 0) {
      state.failCommentLists--
      return sendJson(res, 503, { message: 'Service Unavailable' })
    }
    // GitHub lists issue comments at /issues/{n}/comments and review comments at /pulls/{n}/comments, apart.
    const listed = state.comments.filter((c) => c.pr === at.pr && !c.deleted && (kind !== 'github' || (path.includes('/pulls/') === (c.thread !== undefined))))
      .map((c) => (kind === 'bitbucket' ? { id: c.id, content: { raw: c.body } } : { id: c.id, body: c.body }))
    return sendJson(res, 200, kind === 'bitbucket' ? { values: listed.reverse() } : kind === 'gitlab' ? listed.reverse() : listed)
  }
  // Discussions API, "Get single merge request discussion item": the thread with its notes.
  const discussion = kind === 'gitlab' && at && method === 'GET' ? /^\/discussions\/(\w+)$/.exec(at.rest) : null
  if (discussion) {
    if (state.failCommentLists > 0) {
      state.failCommentLists--
      return sendJson(res, 503, { message: 'Service Unavailable' })
    }
    const notes = state.comments.filter((c) => c.pr === at!.pr && !c.deleted && c.thread === discussion[1]).map((c) => ({ id: c.id, type: 'DiffNote', body: c.body }))
    return sendJson(res, 200, { id: discussion[1], individual_note: false, notes })
  }
  // Draft Notes API, "List all merge request draft notes": the caller's own.
  if (kind === 'gitlab' && at && method === 'GET' && at.rest === '/draft_notes') {
    return sendJson(res, 200, state.drafts.filter((d) => d.pr === at.pr && d.author === account.login).map((d) => ({ id: d.id, author_id: 1, note: d.note, discussion_id: null })))
  }
  if (!at || method !== 'POST') return sendJson(res, 404, { message: 'Not Found' })
  const { pr, rest } = at
  const own = state.authors.get(pr) === account.login
  const head = state.heads.get(pr)
  // A reply in a code thread: GitHub "Create a reply for a review comment" (201, the review comment), GitLab "Add
  // note to existing merge request thread" (201, the note); Bitbucket's is a comment with `parent: { id }` below.
  const threadReply = kind === 'github' ? /^\/comments\/(\d+)\/replies$/.exec(rest) : kind === 'gitlab' ? /^\/discussions\/([\w]+)\/notes$/.exec(rest) : null
  if (threadReply) {
    const comment = { id: nextId++, pr, body: text, author: account.login, deleted: false, thread: threadReply[1]! }
    state.comments.push(comment)
    if (state.loseCommentAnswers > 0) {
      state.loseCommentAnswers--
      return void res.socket?.destroy()
    }
    return sendJson(res, 201, { id: comment.id, body: text, html_url: `https://example.test/${pr}#discussion_r${comment.id}` })
  }
  if (rest === '/comments' || rest === '/notes') {
    if (state.refuseComments !== undefined) {
      const words = state.refuseComments
      return kind === 'github' ? sendJson(res, 422, { message: 'Unprocessable Entity', errors: [words] })
        : kind === 'gitlab' ? sendJson(res, 422, { message: words }) : sendJson(res, 400, { type: 'error', error: { message: words } })
    }
    if (state.failComments > 0) {
      state.failComments--
      return sendJson(res, 503, { message: 'Service Unavailable' })
    }
    const parent = kind === 'bitbucket' ? (body.parent as { id?: unknown } | undefined)?.id : undefined
    const comment = { id: nextId++, pr, body: text, author: account.login, deleted: false, ...(parent === undefined ? {} : { thread: String(parent) }) }
    state.comments.push(comment)
    if (state.loseCommentAnswers > 0) {
      state.loseCommentAnswers--
      return void res.socket?.destroy()
    }
    return sendJson(res, 201, { id: comment.id, html_url: `https://example.test/${pr}#comment-${comment.id}`, links: { html: { href: `https://example.test/${pr}` } } })
  }
  if (kind === 'github' && rest === '/reviews') {
    const event = String(body.event)
    // "body: Required when using REQUEST_CHANGES or COMMENT for the event parameter" (REST "Create a review for a pull request").
    if (event !== 'APPROVE' && !String(body.body ?? '').trim()) return sendJson(res, 422, { message: 'Unprocessable Entity', errors: ['Review body is required'] })
    if (event !== 'COMMENT' && own) return sendJson(res, 422, { message: 'Unprocessable Entity', errors: [`Can not ${event === 'APPROVE' ? 'approve' : 'request changes on'} your own pull request`] })
    // GitHub takes a review of an older commit of the pull request (commit_id "Not using the latest commit SHA may
    // render your review comment outdated"): it is made, for that commit.
    const review = { pr, kind: ({ APPROVE: 'approve', REQUEST_CHANGES: 'request_changes', COMMENT: 'comment' } as const)[event as 'APPROVE']!, body: body.body as string | undefined, sha: String(body.commit_id), author: account.login }
    state.reviews.push(review)
    return sendJson(res, 200, { id: nextId++, state: event === 'APPROVE' ? 'APPROVED' : event })
  }
  if (rest === '/approve') {
    // GitLab answers 401 when the person may not approve (their own, already approved); Bitbucket 400 with its words.
    if (own) return kind === 'gitlab' ? sendJson(res, 401, { message: '401 Unauthorized' }) : sendJson(res, 400, { type: 'error', error: { message: "You can't approve your own pull request." } })
    if (kind === 'gitlab' && head !== undefined && body.sha !== head) return sendJson(res, 409, { message: 'SHA does not match HEAD of source branch: ' + head })
    state.reviews.push({ pr, kind: 'approve', author: account.login, ...(kind === 'gitlab' ? { sha: String(body.sha) } : {}) })
    return sendJson(res, 200, { approved: true })
  }
  if ((kind === 'bitbucket' && rest === '/request-changes') || (kind === 'gitlab' && rest === '/draft_notes/bulk_publish')) {
    if (kind === 'bitbucket') {
      state.reviews.push({ pr, kind: 'request_changes', author: account.login })
      return sendJson(res, 200, { approved: false, state: 'changes_requested' })
    }
    if (body.reviewer_state !== 'requested_changes') return sendJson(res, 400, { message: 'reviewer_state is invalid' })
    // Every one of the caller's drafts is published, then the summary `note`; the state is set only for one of the
    // merge request's reviewers ("GitLab ignores this flag unless you are also listed as one of the reviewers").
    for (const draft of state.drafts.filter((d) => d.pr === pr && d.author === account.login)) {
      state.comments.push({ id: nextId++, pr, body: draft.note, author: account.login, deleted: false })
    }
    state.drafts = state.drafts.filter((d) => !(d.pr === pr && d.author === account.login))
    if (body.note) state.comments.push({ id: nextId++, pr, body: String(body.note), author: account.login, deleted: false })
    if ((state.reviewers.get(pr) ?? []).includes(account.login)) state.reviews.push({ pr, kind: 'request_changes', author: account.login, body: String(body.note ?? '') })
    return void res.writeHead(204).end()
  }
  return sendJson(res, 404, { message: 'Not Found' })
}
