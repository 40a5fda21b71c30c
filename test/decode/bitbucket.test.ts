import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { decodeBitbucket } from '../../src/hosts/bitbucket/decode.ts'
import { isIgnored, type Decoded, type EventKind, type IgnoreReason, type PullRequestEvent } from '../../machines/pull-request-event.ts'
import { wellFormedFor } from './decoded-shape.ts'
import { drop, put, replaceNth } from './payload-edits.ts'
import { bitbucketFixture } from '../helpers/bitbucket-fixtures.ts'

type Json = Record<string, unknown>

const decode = (eventKey: string, payload: unknown): Decoded => decodeBitbucket(eventKey, 'req-uuid-1', payload)
const fixture = bitbucketFixture

function expectEvent(decoded: Decoded): PullRequestEvent {
  if (isIgnored(decoded)) throw new Error(`expected a pull request event, got ignored: ${decoded.reason}`)
  return decoded
}

/** In a real delivery the top-level actor is the reviewer too; a different one shows which object is read. */
const withOtherActor = (payload: Json): Json => put(payload, 'actor', { display_name: 'Someone Else', nickname: 'someone-else', type: 'user', account_id: '557058:other' })

describe('decodeBitbucket: pull request events', () => {
  it('decodes pullrequest:created into every field, owner and repo from full_name', () => {
    expect(decode('pullrequest:created', fixture('created'))).toEqual({
      provider: 'bitbucket', deliveryId: 'req-uuid-1', owner: 'acme', repo: 'payments-api', number: 42, kind: 'opened',
      // The source's head as the webhook writes it: 12 characters.
      head: 'ed0e0bfd9a94',
      pr: {
        title: 'Retry idempotent card captures', url: 'https://bitbucket.org/acme/payments-api/pull-requests/42',
        author: 'dana', draft: false, state: 'open', createdAt: '2025-03-04T09:12:31.118236+00:00',
        updatedAt: '2025-03-04T09:12:31.118236+00:00', authorAccountId: '712020:5e1b4c3a-8f0d-4a7e-9c1b-2d3e4f5a6b7c',
        requestedReviewers: [], into: 'main', from: 'feature/capture-retry',
      },
      actor: { login: 'dana', isBot: false, accountId: '712020:5e1b4c3a-8f0d-4a7e-9c1b-2d3e4f5a6b7c' },
    })
  })

  const rows: Array<[string, EventKind, PullRequestEvent['pr']['state'], string]> = [
    ['updated', 'updated', 'open', 'dana'],
    ['approved', 'approved', 'open', 'rcosta'],
    ['unapproved', 'approval_removed', 'open', 'rcosta'],
    ['changes_request_created', 'changes_requested', 'open', 'rcosta'],
    ['changes_request_removed', 'changes_request_removed', 'open', 'rcosta'],
    ['fulfilled', 'merged', 'merged', 'dana'],
    ['rejected', 'closed', 'closed', 'dana'],
    ['comment_created', 'commented', 'open', 'rcosta'],
  ]
  it.each(rows)('maps pullrequest:%s to %s (state %s, acted by %s)', (name, kind, state, login) => {
    const event = expectEvent(decode(`pullrequest:${name}`, fixture(name)))
    expect(event).toMatchObject({ kind, owner: 'acme', repo: 'payments-api', number: 42, actor: { login, isBot: false } })
    expect(event.pr.state).toBe(state)
  })

  it('reads the new title and draft flag from pullrequest:updated', () => {
    const event = expectEvent(decode('pullrequest:updated', put(fixture('updated'), 'pullrequest.draft', true)))
    expect(event.pr).toMatchObject({ title: 'Retry idempotent card captures (max 2)', draft: true })
  })

  it.each([
    ['approved', 'approval.user'],
    ['unapproved', 'approval.user'],
    ['changes_request_created', 'changes_request.user'],
    ['changes_request_removed', 'changes_request.user'],
    ['comment_created', 'comment.user'],
  ])('takes the actor of pullrequest:%s from %s, not from actor', (name) => {
    expect(expectEvent(decode(`pullrequest:${name}`, withOtherActor(fixture(name)))).actor.login).toBe('rcosta')
  })

  it.each([
    ['approved', 'approval.user'],
    ['changes_request_created', 'changes_request.user'],
    ['comment_created', 'comment.user'],
  ])('falls back to actor when pullrequest:%s lacks %s', (name, path) => {
    expect(expectEvent(decode(`pullrequest:${name}`, drop(withOtherActor(fixture(name)), path))).actor.login).toBe('someone-else')
  })

  it('takes the actor of events without their own user object from actor', () => {
    expect(expectEvent(decode('pullrequest:fulfilled', withOtherActor(fixture('fulfilled')))).actor.login).toBe('someone-else')
  })

  it.each([
    ['fulfilled', '2025-03-04T12:05:44.937462+00:00'],
    ['rejected', '2025-03-04T12:07:19.204418+00:00'],
    ['approved', '2025-03-04T11:40:05.559107+00:00'],
  ])('reads pullrequest.updated_on of pullrequest:%s as updatedAt', (name, updatedAt) => {
    expect(expectEvent(decode(`pullrequest:${name}`, fixture(name))).pr.updatedAt).toBe(updatedAt)
  })

  it('takes updatedAt of a comment from the pull request, not from the comment', () => {
    const payload = put(fixture('comment_created'), 'comment.updated_on', '2030-01-01T00:00:00+00:00')
    expect(expectEvent(decode('pullrequest:comment_created', payload)).pr.updatedAt).toBe('2025-03-04T09:12:31.118236+00:00')
  })

  it('treats a SUPERSEDED pull request as closed', () => {
    expect(expectEvent(decode('pullrequest:rejected', put(fixture('rejected'), 'pullrequest.state', 'SUPERSEDED'))).pr.state).toBe('closed')
  })
})

describe('decodeBitbucket: users', () => {
  it('names the author by display_name when nickname is missing', () => {
    expect(expectEvent(decode('pullrequest:created', drop(fixture('created'), 'pullrequest.author.nickname'))).pr.author).toBe('Dana Whitfield')
  })

  it('names the actor by nickname, then display_name, then account_id', () => {
    const payload = drop(fixture('approved'), 'approval.user.nickname')
    expect(expectEvent(decode('pullrequest:approved', payload)).actor.login).toBe('Rui Costa')
    drop(payload, 'approval.user.display_name')
    expect(expectEvent(decode('pullrequest:approved', payload)).actor.login).toBe('5b90d99f96cb052b5f65ab5d')
  })

  it.each([
    ['app_user', true],
    ['user', false],
    ['team', false],
  ])('counts a %s as a bot: %s', (type, isBot) => {
    const payload = put(fixture('comment_created'), 'comment.user.type', type)
    expect(expectEvent(decode('pullrequest:comment_created', payload)).actor).toEqual({ login: 'rcosta', isBot, accountId: '5b90d99f96cb052b5f65ab5d' })
  })

  it('exposes the account id users: is keyed by, for the actor and the author, and omits it when absent', () => {
    const event = expectEvent(decode('pullrequest:approved', fixture('approved')))
    expect(event.actor.accountId).toBe('5b90d99f96cb052b5f65ab5d')
    expect(event.pr.authorAccountId).toBe('712020:5e1b4c3a-8f0d-4a7e-9c1b-2d3e4f5a6b7c')
    const without = expectEvent(decode('pullrequest:approved', drop(drop(fixture('approved'), 'approval.user.account_id'), 'pullrequest.author.account_id')))
    expect(without.actor).toEqual({ login: 'rcosta', isBot: false })
    expect(without.pr).not.toHaveProperty('authorAccountId')
  })
})

describe('decodeBitbucket: reviewers', () => {
  const rui = { display_name: 'Rui Costa', type: 'user', nickname: 'rcosta', account_id: '5b90d99f96cb052b5f65ab5d', uuid: '{4c1d2e3f-0000-4000-8000-000000000001}' }
  const mei = { display_name: 'Mei Lin', type: 'user', nickname: 'mlin', account_id: '557058:0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0', uuid: '{4c1d2e3f-0000-4000-8000-000000000002}' }
  const participant = (user: Json, approved: boolean, state: string | null) => ({ type: 'participant', user, role: 'REVIEWER', approved, state, participated_on: null })

  it.each(['created', 'updated'])('reads pullrequest:%s reviewers as the requested list, by nickname with the account id', (name) => {
    const payload = put(fixture(name), 'pullrequest.reviewers', [rui, mei])
    expect(expectEvent(decode(`pullrequest:${name}`, payload)).pr.requestedReviewers).toEqual([
      { type: 'user', login: 'rcosta', accountId: '5b90d99f96cb052b5f65ab5d' },
      { type: 'user', login: 'mlin', accountId: '557058:0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0' },
    ])
  })

  it('leaves out reviewers whose participant entry shows an approval or a change request: they are not waited on', () => {
    const payload = put(fixture('approved'), 'pullrequest.reviewers', [rui, mei])
    put(payload, 'pullrequest.participants', [participant(rui, true, 'approved'), participant(mei, false, null)])
    expect(expectEvent(decode('pullrequest:approved', payload)).pr.requestedReviewers).toEqual([{ type: 'user', login: 'mlin', accountId: mei.account_id }])
    put(payload, 'pullrequest.participants', [participant(rui, false, null), participant(mei, false, 'changes_requested')])
    expect(expectEvent(decode('pullrequest:approved', payload)).pr.requestedReviewers).toEqual([{ type: 'user', login: 'rcosta', accountId: rui.account_id }])
  })

  it('has no requested list when the payload has no reviewers field', () => {
    expect(expectEvent(decode('pullrequest:updated', drop(fixture('updated'), 'pullrequest.reviewers'))).pr).not.toHaveProperty('requestedReviewers')
  })
})

describe('decodeBitbucket: comments, for the mirror', () => {
  it('carries a conversation comment: its id, Markdown and page', () => {
    expect(expectEvent(decode('pullrequest:comment_created', fixture('comment_created'))).comment).toEqual({
      id: '512340871', action: 'created', place: 'conversation', body: 'Should the second retry back off?',
      url: 'https://bitbucket.org/acme/payments-api/pull-requests/42/_/diff#comment-512340871',
    })
  })

  it('carries an inline comment with its file, line and the thread its parent starts', () => {
    expect(expectEvent(decode('pullrequest:comment_created', fixture('comment_created_inline'))).comment).toMatchObject({
      id: '512341220', place: 'code', path: 'src/capture/retry.ts', line: 57, thread: '512340871',
    })
    const first = drop(fixture('comment_created_inline'), 'comment.parent')
    expect(expectEvent(decode('pullrequest:comment_created', first)).comment?.thread).toBe('512341220')
  })

  it.each([['comment_updated', 'edited'], ['comment_deleted', 'deleted']] as const)('reads pullrequest:%s as comment_changed (%s)', (name, action) => {
    expect(expectEvent(decode(`pullrequest:${name}`, fixture(name)))).toMatchObject({ kind: 'comment_changed', comment: { id: '512340871', action } })
    // Without its comment there is nothing to change.
    expect(decode(`pullrequest:${name}`, fixture('updated'))).toMatchObject({ ignored: true, reason: 'invalid_payload' })
  })
})

describe('decodeBitbucket: ignored events', () => {
  it.each(['comment_resolved', 'comment_reopened', 'push', 'constructor'])(
    'ignores pullrequest:%s as unsupported_action, naming the pull request',
    (action) => {
      expect(decode(`pullrequest:${action}`, fixture('updated'))).toEqual({
        ignored: true, reason: 'unsupported_action', event: `pullrequest:${action}`, owner: 'acme', repo: 'payments-api', number: 42,
      })
    },
  )

  it('ignores repo:push as unsupported_event, naming the repository', () => {
    expect(decode('repo:push', fixture('repo-push'))).toEqual({ ignored: true, reason: 'unsupported_event', event: 'repo:push', owner: 'acme', repo: 'payments-api' })
  })

  it.each(['diagnostics:ping', 'issue:created', 'constructor', '__proto__', 'PULLREQUEST:CREATED', ''])('ignores event key %j as unsupported_event', (key) => {
    expect(decode(key, fixture('created'))).toMatchObject({ ignored: true, reason: 'unsupported_event' })
  })
})

describe('decodeBitbucket: malformed payloads never throw', () => {
  it.each([null, undefined, [], {}, 'pullrequest', 42, false])('ignores %j as invalid_payload', (payload) => {
    expect(decode('pullrequest:created', payload)).toEqual({ ignored: true, reason: 'invalid_payload', event: 'pullrequest:created' })
  })

  it('does not take repository.name (a display name) for the slug, but still names the workspace', () => {
    const payload = drop(fixture('created'), 'repository.full_name')
    expect(decode('pullrequest:created', payload)).toEqual({ ignored: true, reason: 'invalid_payload', event: 'pullrequest:created', owner: 'acme', number: 42 })
  })

  const wrongTypes: Array<[string, unknown]> = [
    ['pullrequest', [{ id: 42 }]],
    ['pullrequest.id', '42'],
    ['pullrequest.id', -1],
    ['pullrequest.title', null],
    ['pullrequest.links.html', 'https://bitbucket.org/acme/payments-api/pull-requests/42'],
    ['pullrequest.author', 'dana'],
    ['pullrequest.created_on', 1741079551],
    ['pullrequest.updated_on', null],
    ['repository', 'acme/payments-api'],
    ['repository.full_name', 'acme/'],
    ['repository.full_name', '/payments-api'],
    ['actor', []],
  ]
  it.each(wrongTypes)('ignores pullrequest:created with %s set to %j as invalid_payload', (path, value) => {
    expect(decode('pullrequest:created', put(fixture('created'), path, value))).toMatchObject({ ignored: true, reason: 'invalid_payload' })
  })

  // Which top-level fields each fixture cannot do without; deleting any other must change nothing.
  const names = ['created', 'updated', 'approved', 'unapproved', 'changes_request_created', 'changes_request_removed', 'fulfilled', 'rejected', 'comment_created']
  it.each(names)('pullrequest:%s: deleting each top-level field in turn ignores or changes nothing', (name) => {
    const required = ['repository', 'pullrequest', ...(['created', 'updated', 'fulfilled', 'rejected'].includes(name) ? ['actor'] : [])]
    const whole = decode(`pullrequest:${name}`, fixture(name))
    expectEvent(whole)
    for (const key of required) expect(fixture(name)).toHaveProperty(key)
    for (const key of Object.keys(fixture(name))) {
      const decoded = decode(`pullrequest:${name}`, drop(fixture(name), key))
      if (required.includes(key)) expect(decoded, key).toMatchObject({ ignored: true, reason: 'invalid_payload' satisfies IgnoreReason })
      // Without its comment the delivery is still a comment, only with nothing for the mirror.
      else if (key === 'comment') expect(decoded, key).toEqual({ ...whole, comment: undefined })
      else expect(decoded, key).toEqual(whole)
    }
  })

  it('ignores pullrequest:created with any field it reads deleted', () => {
    const paths = ['pullrequest.id', 'pullrequest.title', 'pullrequest.links.html.href', 'pullrequest.author', 'pullrequest.created_on', 'pullrequest.updated_on', 'actor']
    for (const path of paths) {
      expect(decode('pullrequest:created', drop(fixture('created'), path)), path).toMatchObject({ ignored: true, reason: 'invalid_payload' })
    }
  })

  it('never throws on arbitrary values, nor on fixtures with one value replaced by an arbitrary one', () => {
    const eventKey = fc.constantFrom(...names.map((n) => `pullrequest:${n}`), 'repo:push')
    fc.assert(fc.property(eventKey, fc.anything(), (key, payload) => wellFormed(decode(key, payload))))
    fc.assert(fc.property(fc.constantFrom(...names), fc.nat(), fc.anything(), (name, n, value) => {
      const payload = fixture(name)
      replaceNth(payload, n, value)
      return wellFormed(decode(`pullrequest:${name}`, payload))
    }), { numRuns: 500 })
  })
})

const wellFormed = wellFormedFor('bitbucket', ['opened', 'updated', 'approved', 'approval_removed', 'changes_requested', 'changes_request_removed', 'commented', 'merged', 'closed'], ['unsupported_event', 'unsupported_action', 'invalid_payload'])
