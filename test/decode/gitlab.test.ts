import { describe, expect, it } from 'vitest'
import { gitlab } from '../../src/hosts/gitlab/index.ts'
import { gitlabHook } from '../../src/hosts/gitlab/webhooks.ts'
import { commentHook, gitlabFixture, labelChanges } from '../helpers/gitlab-fixtures.ts'

const decode = (event: string, payload: unknown) => gitlab.delivery.decode(event, 'd-1', payload)

describe('GitLab decoding of its documented payloads', () => {
  it('the merge request example: opened, owner/repo from path_with_namespace, MR !iid, head, reviewers waited on', () => {
    expect(decode('Merge Request Hook', gitlabFixture('merge_request'))).toMatchObject({
      provider: 'gitlab', owner: 'gitlabhq', repo: 'gitlab-test', number: 1, kind: 'opened', reference: 'MR !1',
      head: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', actor: { login: 'root', isBot: false },
      // The hook's user (id 1) is not the author (author_id 51): the author is left unnamed.
      pr: { title: 'MS-Viewport', url: 'http://example.com/diaspora/merge_requests/1', author: '', draft: false, state: 'open', requestedReviewers: [{ type: 'user', login: 'user1' }] },
    })
  })

  it('labels: the hook\'s `labels`, or `changes.labels.current` of an update; a Note Hook says none are known', () => {
    expect(decode('Merge Request Hook', gitlabFixture('merge_request'))).toMatchObject({ pr: { labels: ['API'] } })
    const relabelled = gitlabFixture('merge_request')
    relabelled.changes = labelChanges(['API'], ['Platform', 'wip'])
    relabelled.object_attributes.action = 'update'
    expect(decode('Merge Request Hook', relabelled)).toMatchObject({ kind: 'updated', pr: { labels: ['Platform', 'wip'] } })
    expect(decode('Merge Request Hook', { ...gitlabFixture('merge_request'), labels: [] })).not.toHaveProperty('pr.labels')
    expect(decode('Note Hook', gitlabFixture('note_merge_request'))).toMatchObject({ pr: { labelsUnknown: true } })
  })

  it('the comment example on a merge request is a comment; hook times become ISO-8601', () => {
    expect(decode('Note Hook', gitlabFixture('note_merge_request'))).toMatchObject({
      owner: 'gitlab-org', repo: 'gitlab-test', number: 1, kind: 'commented', pr: { createdAt: '2015-03-01T20:12:53Z', updatedAt: '2015-03-21T18:27:27Z' },
    })
    expect(decode('Note Hook', gitlabFixture('note_issue'))).toMatchObject({ ignored: true, reason: 'not_a_pull_request' })
  })

  it('the pipeline example is a passing check for its commit, naming its merge request', () => {
    expect(decode('Pipeline Hook', gitlabFixture('pipeline'))).toMatchObject({
      check: true, owner: 'gitlab-org', repo: 'gitlab-test', prNumbers: [1],
      result: { sha: 'bcbb5ec396a2c0f828686f14fac9b80b780504f2', source: 'pipeline:merge_request_event', outcome: 'passed', at: '2016-08-12T15:26:29Z' },
    })
  })

  it('a nested group is the owner; a project access token\'s bot is a bot', () => {
    const payload = gitlabFixture('merge_request')
    payload.project.path_with_namespace = 'platform/backend/api'
    payload.user.username = 'project_42_bot_0123abcd'
    expect(decode('Merge Request Hook', payload)).toMatchObject({ owner: 'platform/backend', repo: 'api', actor: { isBot: true } })
  })

  it('other hooks and unknown actions are ignored with a reason', () => {
    expect(decode('Push Hook', {})).toMatchObject({ ignored: true, reason: 'unsupported_event' })
    const payload = gitlabFixture('merge_request')
    payload.object_attributes.action = 'something_new'
    expect(decode('Merge Request Hook', payload)).toMatchObject({ ignored: true, reason: 'unsupported_action' })
  })
})

describe('GitLab delivery headers', () => {
  const body = new TextEncoder().encode('{}')
  it('X-Gitlab-Token must equal one of the secrets', () => {
    expect(gitlab.delivery.authenticate(['old', 's3cret'], new Headers({ 'x-gitlab-token': 's3cret' }), body)).toBe(true)
    expect(gitlab.delivery.authenticate(['s3cret'], new Headers({ 'x-gitlab-token': 's3cre' }), body)).toBe(false)
    expect(gitlab.delivery.authenticate(['s3cret'], new Headers(), body)).toBe(false)
    expect(gitlab.delivery.authenticate([''], new Headers({ 'x-gitlab-token': '' }), body)).toBe(false)
  })

  it('the delivery id is Idempotency-Key, else the body\'s digest; never X-Gitlab-Event-UUID', () => {
    expect(gitlab.delivery.deliveryId(new Headers({ 'idempotency-key': 'k-1', 'x-gitlab-event-uuid': 'u-1' }), body)).toBe('k-1')
    expect(gitlab.delivery.deliveryId(new Headers({ 'x-gitlab-event-uuid': 'u-1' }), body)).toMatch(/^sha256:[0-9a-f]{64}$/)
  })
})

describe('GitLab hooks as the checks see them', () => {
  it('a hook GitLab disabled after failures is inactive; a temporary disable ends at disabled_until', () => {
    const now = Date.parse('2026-11-21T10:00:00Z')
    const hook = { id: 3, url: 'https://p.example/webhook/gitlab', merge_requests_events: true, note_events: true, pipeline_events: false, push_events: false }
    expect(gitlabHook({ ...hook, alert_status: 'executable' }, now)).toEqual({ id: '3', url: hook.url, active: true, events: ['merge_requests_events', 'note_events'] })
    expect(gitlabHook({ ...hook, alert_status: 'disabled' }, now).active).toBe(false)
    expect(gitlabHook({ ...hook, alert_status: 'temporarily_disabled', disabled_until: '2026-11-21T11:00:00Z' }, now).active).toBe(false)
    expect(gitlabHook({ ...hook, alert_status: 'temporarily_disabled', disabled_until: '2026-11-21T09:00:00Z' }, now).active).toBe(true)
  })
})

describe('decodeGitlab: comments, for the mirror', () => {
  it('carries a note on the conversation, and a DiffNote with its file, line and discussion', () => {
    expect(decode('Note Hook', commentHook({ iid: 3 }, { id: 901, note: 'Why **this**?' }))).toMatchObject({
      kind: 'commented', comment: { id: '901', action: 'created', place: 'conversation', body: 'Why **this**?', url: 'https://gitlab.example.com/acme/api/-/merge_requests/3#note_901' },
    })
    const diff = decode('Note Hook', commentHook({ iid: 3 }, { id: 902, diff: { path: 'lib/limit.rb', line: 14, discussion: 'f'.repeat(40) } }))
    expect(diff).toMatchObject({ kind: 'commented', comment: { id: '902', place: 'code', path: 'lib/limit.rb', line: 14, thread: 'f'.repeat(40) } })
  })

  it('reads an update (object_attributes.action) as comment_changed; a system note stays no comment', () => {
    expect(decode('Note Hook', commentHook({ iid: 3 }, { id: 901, action: 'update' }))).toMatchObject({ kind: 'comment_changed', comment: { id: '901', action: 'edited' } })
    const system = commentHook({ iid: 3 }, { id: 903 })
    system.object_attributes.system = true
    expect(decode('Note Hook', system)).toMatchObject({ ignored: true, reason: 'unsupported_action' })
  })
})
