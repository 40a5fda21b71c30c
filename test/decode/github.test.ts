import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { createRequire } from 'node:module'
import { decodeGithub } from '../../src/hosts/github/decode.ts'
import { isIgnored, type Decoded, type IgnoreReason, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import { wellFormedFor } from './decoded-shape.ts'
import { drop, put, replaceNth } from './payload-edits.ts'
import { githubExample } from '../helpers/github-examples.ts'

type Json = Record<string, unknown>

interface ExampleGroup { name: string; examples: Json[] }
// Read directly only to enumerate what the package holds; payloads under test come through githubExample.
const groups = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as ExampleGroup[]
const actionsOf = (event: string): string[] => [...new Set(groups.find((g) => g.name === event)?.examples.map((p) => String(p.action)))]

const decode = (event: string, payload: unknown): Decoded => decodeGithub(event, 'delivery-1', payload)
const example = githubExample

function expectEvent(decoded: Decoded): PullRequestEvent {
  if (isIgnored(decoded)) throw new Error(`expected a pull request event, got ignored: ${decoded.reason}`)
  return decoded
}

function expectIgnored(decoded: Decoded, reason: IgnoreReason): void {
  expect(decoded).toMatchObject({ ignored: true, reason })
}

/**
 * Every example payload uses "Codertocat" for the repository owner, the author, the sender, the reviewer and
 * the commenter. Giving each role its own login is the only way to show which one the decoder read.
 */
function withDistinctUsers(payload: Json): Json {
  put(payload, `${'issue' in payload ? 'issue' : 'pull_request'}.user.login`, 'pr-author')
  put(payload, 'sender.login', 'the-sender')
  if ('review' in payload) put(payload, 'review.user.login', 'the-reviewer')
  if ('comment' in payload) put(payload, 'comment.user.login', 'the-commenter')
  return payload
}

/** The examples have no issue_comment on a pull request; GitHub marks one by adding `issue.pull_request`. */
function commentOnPullRequest(action = 'created'): Json {
  return put(example('issue_comment', action), 'issue.pull_request', {
    url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1',
    html_url: 'https://github.com/Codertocat/Hello-World/pull/1',
    diff_url: 'https://github.com/Codertocat/Hello-World/pull/1.diff',
    patch_url: 'https://github.com/Codertocat/Hello-World/pull/1.patch',
    merged_at: null,
  })
}

describe('decodeGithub: pull_request', () => {
  it('decodes an opened pull request from the real example into every field', () => {
    expect(decode('pull_request', withDistinctUsers(example('pull_request', 'opened')))).toEqual({
      provider: 'github', deliveryId: 'delivery-1', owner: 'Codertocat', repo: 'Hello-World', number: 2, kind: 'opened',
      pr: {
        title: 'Update the README with new information.', url: 'https://github.com/Codertocat/Hello-World/pull/2',
        author: 'pr-author', draft: false, state: 'open', createdAt: '2019-05-15T15:20:33Z', updatedAt: '2019-05-15T15:20:33Z',
        requestedReviewers: [], into: 'master', from: 'changes',
      },
      actor: { login: 'the-sender', isBot: false }, head: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
    })
  })

  it('maps the real synchronize example to synchronize, with the new head commit', () => {
    const event = expectEvent(decode('pull_request', example('pull_request', 'synchronize')))
    expect(event.kind).toBe('synchronize')
    expect(event.head).toMatch(/^[0-9a-f]{40}$/)
  })

  it.each([
    ['reopened', 'reopened', false],
    ['ready_for_review', 'ready_for_review', false],
    ['converted_to_draft', 'converted_to_draft', true],
  ] as const)('maps action %s to %s with the draft flag of the real example', (action, kind, draft) => {
    const event = expectEvent(decode('pull_request', example('pull_request', action)))
    expect(event.kind).toBe(kind)
    expect(event.pr.draft).toBe(draft)
    expect(event.pr.state).toBe('open')
  })

  it('maps closed without merging to closed (the only closed examples are unmerged)', () => {
    const event = expectEvent(decode('pull_request', example('pull_request', 'closed')))
    expect(event.kind).toBe('closed')
    expect(event.pr.state).toBe('closed')
    // The end time the lifecycle records: the close bumps updated_at past the opened example's.
    expect(event.pr.updatedAt).toBe('2019-05-15T15:21:18Z')
  })

  it('maps closed with merged: true to merged (no merged example exists: the closed one with merged set)', () => {
    const payload = put(example('pull_request', 'closed'), 'pull_request.merged', true)
    put(payload, 'pull_request.merged_at', '2019-05-15T15:21:00Z')
    const event = expectEvent(decode('pull_request', payload))
    expect(event.kind).toBe('merged')
    expect(event.pr.state).toBe('merged')
  })

  // There is no `edited` example; the opened one with its action and `changes` swapped stands in.
  it('maps edited to edited only when the title changed', () => {
    const titled = put(example('pull_request', 'opened'), 'action', 'edited')
    put(titled, 'changes', { title: { from: 'Update the README' } })
    expect(expectEvent(decode('pull_request', titled)).kind).toBe('edited')

    const bodyOnly = put(example('pull_request', 'opened'), 'action', 'edited')
    put(bodyOnly, 'changes', { body: { from: 'old description' } })
    expect(decode('pull_request', bodyOnly)).toEqual({ ignored: true, reason: 'unsupported_action', event: 'pull_request', owner: 'Codertocat', repo: 'Hello-World', number: 2 })
  })

  // GitHub's `edited` "changes.base.ref.from": the base branch was changed (a retarget); the payload's base is the new one.
  it('maps a retarget (edited with changes.base) to updated, with the new target branch', () => {
    const retargeted = put(example('pull_request', 'opened'), 'action', 'edited')
    put(retargeted, 'changes', { base: { ref: { from: 'develop' }, sha: { from: '0000000000000000000000000000000000000000' } } })
    const event = expectEvent(decode('pull_request', retargeted))
    expect(event.kind).toBe('updated')
    expect(event.pr.into).toBe('master')
  })

  it('maps the real review_requested example to review_requested, naming the requested user and the full list', () => {
    const event = expectEvent(decode('pull_request', withDistinctUsers(example('pull_request', 'review_requested'))))
    expect(event).toMatchObject({ kind: 'review_requested', number: 2, actor: { login: 'the-sender' }, reviewer: { type: 'user', login: 'octocat' } })
    expect(event.pr.requestedReviewers).toEqual([{ type: 'user', login: 'octocat' }])
  })

  it('maps the real review_request_removed example to review_request_removed, naming the user no longer asked', () => {
    const event = expectEvent(decode('pull_request', example('pull_request', 'review_request_removed')))
    expect(event).toMatchObject({ kind: 'review_request_removed', reviewer: { type: 'user', login: 'octocat' } })
  })

  // No example requests a team; GitHub's schema puts `requested_team` (a Team) where `requested_reviewer` is.
  const team = { name: 'Backend Team', id: 42, node_id: 'T_42', slug: 'backend-team', description: null, privacy: 'closed', url: 'https://api.github.com/teams/42', html_url: 'https://github.com/orgs/Codertocat/teams/backend-team', members_url: '', repositories_url: '', permission: 'pull' }
  it.each(['review_requested', 'review_request_removed'])('maps %s of a team, naming the team by slug and name', (action) => {
    const payload = drop(example('pull_request', action), 'requested_reviewer')
    payload.requested_team = team
    put(payload, 'pull_request.requested_teams', [team])
    const event = expectEvent(decode('pull_request', payload))
    expect(event.reviewer).toEqual({ type: 'team', slug: 'backend-team', name: 'Backend Team' })
    expect(event.pr.requestedReviewers).toEqual([{ type: 'user', login: 'octocat' }, { type: 'team', slug: 'backend-team', name: 'Backend Team' }])
  })

  it('ignores a review request that names neither a user nor a team as invalid_payload', () => {
    const payload = drop(example('pull_request', 'review_requested'), 'requested_reviewer')
    expectIgnored(decode('pull_request', payload), 'invalid_payload')
  })

  it('reads the full requested list from every pull_request and review payload, and none from an issue comment', () => {
    expect(expectEvent(decode('pull_request', example('pull_request', 'ready_for_review'))).pr.requestedReviewers).toEqual([{ type: 'user', login: 'octocat' }])
    const review = expectEvent(decode('pull_request_review', example('pull_request_review', 'submitted', (p) => ((p.pull_request as { requested_reviewers: unknown[] }).requested_reviewers.length > 0))))
    expect(review.pr.requestedReviewers).toEqual([{ type: 'user', login: 'octocat' }])
    expect(review.submittedReview).toBe(true)
    const withoutLists = drop(drop(example('pull_request', 'opened'), 'pull_request.requested_reviewers'), 'pull_request.requested_teams')
    expect(expectEvent(decode('pull_request', withoutLists)).pr).not.toHaveProperty('requestedReviewers')
    const comment = expectEvent(decode('issue_comment', commentOnPullRequest()))
    expect(comment.pr).not.toHaveProperty('requestedReviewers')
    expect(comment).not.toHaveProperty('submittedReview')
    const line = expectEvent(decode('pull_request_review_comment', example('pull_request_review_comment', 'created')))
    expect(line).not.toHaveProperty('submittedReview')
  })

  it('skips entries of the lists that name no one, keeping the rest', () => {
    const payload = put(example('pull_request', 'opened'), 'pull_request.requested_reviewers', [{ id: 1 }, 'x', { login: 'dave' }])
    put(payload, 'pull_request.requested_teams', [{ name: 'no slug' }, team])
    expect(expectEvent(decode('pull_request', payload)).pr.requestedReviewers).toEqual([
      { type: 'user', login: 'dave' }, { type: 'team', slug: 'backend-team', name: 'Backend Team' },
    ])
  })

  it.each(['labeled', 'unlabeled'])('decodes the real %s example as updated, with the labels ignore.labels reads', (action) => {
    const decoded = expectEvent(decode('pull_request', example('pull_request', action)))
    expect(decoded.kind).toBe('updated')
    expect(decoded.pr.labels ?? []).toEqual(((example('pull_request', action) as { pull_request: { labels: Array<{ name: string }> } }).pull_request.labels).map((l) => l.name))
  })

  const handled = new Set(['opened', 'reopened', 'ready_for_review', 'converted_to_draft', 'closed', 'edited', 'review_requested', 'review_request_removed', 'synchronize', 'labeled', 'unlabeled'])
  it.each(actionsOf('pull_request').filter((a) => !handled.has(a)))('ignores the real %s example as unsupported_action, naming the pull request', (action) => {
    expect(decode('pull_request', example('pull_request', action))).toEqual({
      ignored: true, reason: 'unsupported_action', event: 'pull_request', owner: 'Codertocat', repo: 'Hello-World', number: 2,
    })
  })
})

describe('decodeGithub: reviews and comments', () => {
  it('maps the real submitted review (state commented) to commented, acted by the reviewer', () => {
    const event = expectEvent(decode('pull_request_review', withDistinctUsers(example('pull_request_review', 'submitted'))))
    expect(event.kind).toBe('commented')
    expect(event.actor).toEqual({ login: 'the-reviewer', isBot: false })
    expect(event.pr.author).toBe('pr-author')
  })

  // The examples hold only `commented` submissions; the same payload with review.state changed stands in.
  it.each([
    ['approved', 'approved'], ['APPROVED', 'approved'],
    ['changes_requested', 'changes_requested'], ['CHANGES_REQUESTED', 'changes_requested'],
    ['COMMENTED', 'commented'],
  ] as const)('maps a submitted review with state %s to %s', (state, kind) => {
    const payload = put(example('pull_request_review', 'submitted'), 'review.state', state)
    expect(expectEvent(decode('pull_request_review', payload)).kind).toBe(kind)
  })

  it.each(['pending', 'dismissed', 'constructor', ''])('ignores a submitted review with state %j', (state) => {
    const payload = put(example('pull_request_review', 'submitted'), 'review.state', state)
    expectIgnored(decode('pull_request_review', payload), 'unsupported_action')
  })

  it('maps the real dismissed review to review_dismissed, naming the reviewer whose verdict goes', () => {
    const payload = withDistinctUsers(example('pull_request_review', 'dismissed'))
    const event = expectEvent(decode('pull_request_review', payload))
    expect(event.kind).toBe('review_dismissed')
    expect(event.actor.login).toBe('the-reviewer')
    // This example's html_url points at another repository (hellomouse/GNS#902); the url is taken as sent.
    expect(event.pr.url).toBe('https://github.com/hellomouse/GNS/pull/902')
  })

  it('carries the review id on a submission and on a dismissal, so a dismissed review is known by its id', () => {
    const submitted = example('pull_request_review', 'submitted')
    const dismissed = example('pull_request_review', 'dismissed')
    expect(expectEvent(decode('pull_request_review', submitted)).reviewId).toBe(String((submitted.review as { id: number }).id))
    expect(expectEvent(decode('pull_request_review', dismissed)).reviewId).toBe(String((dismissed.review as { id: number }).id))
    expect(expectEvent(decode('pull_request_review', drop(submitted, 'review.id')))).not.toHaveProperty('reviewId')
  })

  it('ignores an edited review without a body (the submitted example re-labelled), and reads one with a body as comment_changed', () => {
    const payload = put(example('pull_request_review', 'submitted'), 'action', 'edited')
    expectIgnored(decode('pull_request_review', payload), 'unsupported_action')
    const edited = expectEvent(decode('pull_request_review', put(payload, 'review.body', 'Looks better now')))
    expect(edited).toMatchObject({ kind: 'comment_changed', comment: { action: 'edited', place: 'review', body: 'Looks better now', id: String((payload.review as { id: number }).id) } })
  })

  it('carries a submitted review\'s body as the mirror\'s review comment, and none for a review without one', () => {
    const payload = example('pull_request_review', 'submitted')
    expect(expectEvent(decode('pull_request_review', payload))).not.toHaveProperty('comment')
    const review = payload.review as { id: number; html_url: string }
    expect(expectEvent(decode('pull_request_review', put(payload, 'review.body', 'Two nits')))).toMatchObject({
      kind: expect.any(String), comment: { id: String(review.id), action: 'created', place: 'review', body: 'Two nits', url: review.html_url },
    })
  })

  it('maps the real created review comment to commented, acted by the commenter', () => {
    const event = expectEvent(decode('pull_request_review_comment', withDistinctUsers(example('pull_request_review_comment', 'created'))))
    expect(event).toMatchObject({ kind: 'commented', number: 2, actor: { login: 'the-commenter', isBot: false } })
    // The review-comment examples carry no `draft` on their pull request: absent means not a draft.
    expect(event.pr.draft).toBe(false)
  })

  it('carries the real created review comment with its file, line and code thread', () => {
    const payload = example('pull_request_review_comment', 'created', (p) => 'line' in (p.comment as object))
    const comment = payload.comment as { id: number; path: string; line: number; html_url: string; body: string }
    expect(expectEvent(decode('pull_request_review_comment', payload)).comment).toEqual({
      id: String(comment.id), action: 'created', place: 'code', body: comment.body, url: comment.html_url, path: comment.path, line: comment.line, thread: String(comment.id),
    })
    // A reply names the thread's first comment: GitHub takes replies only to a top-level review comment.
    expect(expectEvent(decode('pull_request_review_comment', put(payload, 'comment.in_reply_to_id', 11))).comment?.thread).toBe('11')
  })

  it.each(['edited', 'deleted'] as const)('reads the real %s review comment as comment_changed, for the mirror', (action) => {
    const event = expectEvent(decode('pull_request_review_comment', example('pull_request_review_comment', action)))
    expect(event).toMatchObject({ kind: 'comment_changed', comment: { action, place: 'code' } })
  })
})

describe('decodeGithub: issue_comment', () => {
  it('ignores the real created comment on an issue as not_a_pull_request, naming the issue', () => {
    expect(decode('issue_comment', example('issue_comment', 'created'))).toEqual({
      ignored: true, reason: 'not_a_pull_request', event: 'issue_comment', owner: 'Codertocat', repo: 'Hello-World', number: 1,
    })
  })

  it('decodes a comment on a pull request from the issue, acted by the commenter', () => {
    const payload = withDistinctUsers(commentOnPullRequest())
    expect(decode('issue_comment', payload)).toEqual({
      provider: 'github', deliveryId: 'delivery-1', owner: 'Codertocat', repo: 'Hello-World', number: 1, kind: 'commented',
      pr: {
        title: 'Spelling error in the README file', url: 'https://github.com/Codertocat/Hello-World/pull/1',
        author: 'pr-author', draft: false, state: 'open', createdAt: '2019-05-15T15:20:18Z', updatedAt: '2019-05-15T15:20:21Z',
        labels: ['bug'],
      },
      actor: { login: 'the-commenter', isBot: false },
      comment: {
        id: String((payload.comment as { id: number }).id), action: 'created', place: 'conversation',
        body: (payload.comment as { body: string }).body, url: (payload.comment as { html_url: string }).html_url,
      },
    })
  })

  it('reads draft, closed and merged from the issue and falls back to the issue url', () => {
    const payload = commentOnPullRequest()
    put(payload, 'issue.draft', true)
    put(payload, 'issue.state', 'closed')
    drop(payload, 'issue.pull_request.html_url')
    const closed = expectEvent(decode('issue_comment', payload))
    expect(closed.pr).toMatchObject({ draft: true, state: 'closed', url: 'https://github.com/Codertocat/Hello-World/issues/1' })
    put(payload, 'issue.pull_request.merged_at', '2019-05-15T15:21:00Z')
    expect(expectEvent(decode('issue_comment', payload)).pr.state).toBe('merged')
  })

  it('reads updatedAt of a comment from the issue, the pull request\'s own time', () => {
    const payload = put(commentOnPullRequest(), 'comment.updated_at', '2030-01-01T00:00:00Z')
    expect(expectEvent(decode('issue_comment', payload)).pr.updatedAt).toBe('2019-05-15T15:20:21Z')
  })

  it.each(['edited', 'deleted'] as const)('reads a %s comment on a pull request as comment_changed, for the mirror', (action) => {
    expect(expectEvent(decode('issue_comment', commentOnPullRequest(action)))).toMatchObject({ kind: 'comment_changed', comment: { action, place: 'conversation' } })
    expectIgnored(decode('issue_comment', drop(commentOnPullRequest(action), 'comment')), 'invalid_payload')
  })
})

describe('decodeGithub: actors', () => {
  it.each([
    ['type Bot', { login: 'renovate', type: 'Bot' }, true],
    ['a [bot] login', { login: 'dependabot[bot]', type: 'User' }, true],
    ['a person', { login: 'octocat', type: 'User' }, false],
  ])('marks %s', (_label, user, isBot) => {
    const payload = put(example('pull_request', 'opened'), 'sender.login', user.login)
    put(payload, 'sender.type', user.type)
    expect(expectEvent(decode('pull_request', payload)).actor).toEqual({ login: user.login, isBot })
  })

  it('flags a bot reviewer by review.user, not by the sender', () => {
    const payload = withDistinctUsers(example('pull_request_review', 'submitted'))
    put(payload, 'review.user.type', 'Bot')
    expect(expectEvent(decode('pull_request_review', payload)).actor).toEqual({ login: 'the-reviewer', isBot: true })
  })

  it('falls back to the sender when the review names no user', () => {
    const payload = withDistinctUsers(example('pull_request_review', 'submitted'))
    put(payload, 'review.user', null)
    expect(expectEvent(decode('pull_request_review', payload)).actor.login).toBe('the-sender')
  })
})

describe('decodeGithub: ignored events', () => {
  it('ignores every real ping example as ping', () => {
    const pings = groups.find((g) => g.name === 'ping')?.examples ?? []
    expect(pings.length).toBeGreaterThan(0)
    for (const ping of pings) expectIgnored(decode('ping', structuredClone(ping)), 'ping')
  })

  it('ignores ping even when its body is not an object', () => {
    expect(decode('ping', null)).toEqual({ ignored: true, reason: 'ping', event: 'ping' })
  })

  const events = groups.map((g) => g.name).filter((n) => !['ping', 'pull_request', 'pull_request_review', 'pull_request_review_comment', 'issue_comment'].includes(n))
  it.each(events)('ignores the real %s example as unsupported_event', (event) => {
    expect(decode(event, example(event))).toMatchObject({ ignored: true, reason: 'unsupported_event', event })
  })

  it.each(['', 'constructor', '__proto__', 'PULL_REQUEST'])('ignores event name %j as unsupported_event', (event) => {
    expectIgnored(decode(event, example('pull_request', 'opened')), 'unsupported_event')
  })

  it('ignores an action named after an Object.prototype member', () => {
    const payload = put(example('pull_request', 'opened'), 'action', 'constructor')
    expectIgnored(decode('pull_request', payload), 'unsupported_action')
  })
})

describe('decodeGithub: malformed payloads never throw', () => {
  it.each([null, undefined, [], {}, 'pull_request', 42, true])('ignores %j as invalid_payload', (payload) => {
    expect(decode('pull_request', payload)).toEqual({ ignored: true, reason: 'invalid_payload', event: 'pull_request' })
  })

  const wrongTypes: Array<[string, unknown]> = [
    ['action', 1],
    ['pull_request', [{ number: 2 }]],
    ['pull_request.number', '2'],
    ['pull_request.number', 0],
    ['pull_request.number', 2.5],
    ['pull_request.title', 7],
    ['pull_request.html_url', null],
    ['pull_request.user', 'Codertocat'],
    ['pull_request.created_at', 1557933633],
    ['pull_request.updated_at', null],
    ['repository', 'Codertocat/Hello-World'],
    ['repository.owner.login', ''],
    ['repository.name', {}],
    ['sender', 5],
  ]
  it.each(wrongTypes)('ignores an opened payload with %s set to %j as invalid_payload', (path, value) => {
    const payload = put(example('pull_request', 'opened'), path, value)
    expectIgnored(decode('pull_request', payload), 'invalid_payload')
  })

  // Which top-level fields each real example cannot do without; deleting any other must change nothing.
  const cases: Array<[string, () => Json, Record<string, IgnoreReason>]> = [
    ['pull_request', () => example('pull_request', 'opened', (p) => 'organization' in p), { action: 'invalid_payload', pull_request: 'invalid_payload', repository: 'invalid_payload', sender: 'invalid_payload' }],
    ['pull_request', () => example('pull_request', 'closed'), { action: 'invalid_payload', pull_request: 'invalid_payload', repository: 'invalid_payload', sender: 'invalid_payload' }],
    ['pull_request_review', () => example('pull_request_review', 'submitted', (p) => 'installation' in p), { action: 'invalid_payload', pull_request: 'invalid_payload', repository: 'invalid_payload', review: 'unsupported_action' }],
    ['pull_request_review', () => example('pull_request_review', 'dismissed'), { action: 'invalid_payload', pull_request: 'invalid_payload', repository: 'invalid_payload', review: 'invalid_payload' }],
    ['pull_request_review_comment', () => example('pull_request_review_comment', 'created', (p) => 'organization' in p), { action: 'invalid_payload', pull_request: 'invalid_payload', repository: 'invalid_payload' }],
    ['issue_comment', () => commentOnPullRequest(), { action: 'invalid_payload', issue: 'invalid_payload', repository: 'invalid_payload' }],
  ]
  it.each(cases)('%s: deleting each top-level field in turn ignores or changes nothing', (event, load, required) => {
    const whole = decode(event, load())
    expectEvent(whole)
    for (const key of Object.keys(required)) expect(load()).toHaveProperty(key)
    for (const key of Object.keys(load())) {
      const payload = load()
      delete payload[key]
      const reason = required[key]
      if (reason) expect(decode(event, payload), key).toMatchObject({ ignored: true, reason })
      // Without its comment the delivery is still a comment, only with nothing for the mirror.
      else if (key === 'comment') expect(decode(event, payload), key).toEqual({ ...whole, comment: undefined, actor: expect.anything() })
      else expect(decode(event, payload), key).toEqual(whole)
    }
  })

  it('ignores the opened example with any field it reads deleted', () => {
    const paths = ['pull_request.number', 'pull_request.title', 'pull_request.html_url', 'pull_request.user', 'pull_request.user.login',
      'pull_request.created_at', 'pull_request.updated_at', 'repository.owner', 'repository.owner.login', 'repository.name', 'sender.login']
    for (const path of paths) {
      const payload = drop(example('pull_request', 'opened'), path)
      expect(decode('pull_request', payload), path).toMatchObject({ ignored: true, reason: 'invalid_payload' })
    }
  })

  it('never throws on arbitrary values, nor on real examples with one value replaced by an arbitrary one', () => {
    const eventName = fc.constantFrom('pull_request', 'pull_request_review', 'pull_request_review_comment', 'issue_comment', 'ping', 'push')
    fc.assert(fc.property(eventName, fc.anything(), (event, payload) => wellFormed(decode(event, payload))))
    const real = [example('pull_request', 'opened'), example('pull_request_review', 'submitted'), commentOnPullRequest()]
    fc.assert(fc.property(eventName, fc.constantFrom(...real), fc.nat(), fc.anything(), (event, base, n, value) => {
      const payload = structuredClone(base)
      replaceNth(payload, n, value)
      return wellFormed(decode(event, payload))
    }), { numRuns: 500 })
  })
})

const wellFormed = wellFormedFor('github', ['opened', 'reopened', 'ready_for_review', 'converted_to_draft', 'edited', 'approved', 'changes_requested', 'commented', 'review_dismissed', 'review_requested', 'review_request_removed', 'merged', 'closed'], ['ping', 'unsupported_event', 'unsupported_action', 'not_a_pull_request', 'invalid_payload'])
