import { githubExample } from './github-examples.ts'

/**
 * Real GitHub example payloads (@octokit/webhooks-examples) with only the fields a scenario needs changed:
 * the pull request number, draft and merged flags, review state and author. Every delivery in the
 * lifecycle tests is one of these, signed as GitHub signs it.
 */
// Deep, loosely typed JSON on purpose: the builders poke at nested example fields the decoders then check.
type Json = Record<string, any>

export interface PullRequestFacts {
  draft?: boolean
  merged?: boolean
  title?: string | undefined
  /** The pull request's author and the sender, e.g. `dependabot[bot]` (a Bot account then). */
  author?: string | undefined
  labels?: string[] | undefined
  body?: string | undefined
}

export function pullRequest(action: string, number: number, facts: PullRequestFacts = {}): Json {
  const payload = githubExample('pull_request', 'opened') as Json
  payload.action = action
  payload.number = number
  const pr = payload.pull_request
  pr.number = number
  pr.html_url = `https://github.com/Codertocat/Hello-World/pull/${number}`
  pr.draft = facts.draft ?? false
  pr.merged = facts.merged ?? false
  pr.state = action === 'closed' ? 'closed' : 'open'
  if (facts.title !== undefined) pr.title = facts.title
  if (facts.author !== undefined) {
    const type = facts.author.endsWith('[bot]') ? 'Bot' : 'User'
    pr.user.login = facts.author
    pr.user.type = type
    payload.sender.login = facts.author
    payload.sender.type = type
  }
  if (facts.labels !== undefined) pr.labels = facts.labels.map((name, i) => ({ id: 1000 + i, name, color: 'ededed', default: false }))
  if (facts.body !== undefined) pr.body = facts.body
  if (action === 'edited') payload.changes = { title: { from: 'an older title' } }
  return payload
}

let reviewIds = 900_000
/** `reviewId`: GitHub's review.id; a fresh one for each review by default (a dismissal names the review it withdraws). */
export function review(state: 'approved' | 'changes_requested' | 'commented' | 'dismissed', number: number, reviewer: string, options: { bot?: boolean; reviewId?: number } = {}): Json {
  const payload = githubExample('pull_request_review', 'submitted') as Json
  payload.action = state === 'dismissed' ? 'dismissed' : 'submitted'
  payload.review.id = options.reviewId ?? ++reviewIds
  payload.review.state = state
  payload.review.user.login = reviewer
  payload.review.user.type = options.bot ? 'Bot' : 'User'
  payload.sender.login = reviewer
  payload.pull_request.number = number
  payload.pull_request.draft = false
  payload.pull_request.html_url = `https://github.com/Codertocat/Hello-World/pull/${number}`
  return payload
}

export function conversationComment(number: number, author: string): Json {
  const payload = githubExample('issue_comment', 'created') as Json
  payload.issue.number = number
  payload.issue.pull_request ??= { url: `https://api.github.com/repos/Codertocat/Hello-World/pulls/${number}` }
  payload.issue.pull_request.html_url = `https://github.com/Codertocat/Hello-World/pull/${number}`
  payload.issue.state = 'open'
  payload.comment.user.login = author
  payload.sender.login = author
  return payload
}

export function reviewComment(number: number, author: string): Json {
  const payload = githubExample('pull_request_review_comment', 'created') as Json
  payload.pull_request.number = number
  payload.pull_request.draft = false
  payload.comment.user.login = author
  payload.sender.login = author
  return payload
}
