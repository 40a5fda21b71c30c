import { describe, expect, it } from 'vitest'
import { gitlabFixture, labelChanges, mergeRequestHook, noteHook, pipelineHook } from '../helpers/gitlab-fixtures.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const CHANNEL = 'C0000000010'
const NESTED = 'C0000000011'
const h = usePrherald({
  provider: 'gitlab',
  config: {
    mappings: { acme: { api: { channel: CHANNEL, ignore: { labels: ['wip'] } } }, 'platform/backend': { api: { channel: NESTED } } },
  },
  start: true,
})

async function send(event: string, payload: unknown, options: { deliveryId?: string; secret?: string } = {}) {
  const res = await deliver(h.service!.url, 'gitlab', { event, payload, ...options })
  expect(await h.service!.settle(10_000)).toBe(true)
  return { status: res.status, body: (await res.json()) as { status?: string; reason?: string } }
}
const mr = (action: string, facts: Parameters<typeof mergeRequestHook>[1]) => send('Merge Request Hook', mergeRequestHook(action, facts))
const text = (channel = CHANNEL) => h.slack.messagesIn(channel).map((m) => JSON.stringify(m.blocks))

describe('GitLab end to end: its documented payloads through a real server', () => {
  it('opened, approved, a comment, a failed pipeline and the merge: one message, edited, with reactions', async () => {
    await mr('open', { iid: 7, reviewers: [{ username: 'alice' }] })
    expect(text()).toHaveLength(1)
    expect(text()[0]).toContain('MR !7: Add rate limiting')
    expect(text()[0]).toContain('Waiting on alice')
    await mr('approval', { iid: 7, actor: 'alice', reviewers: [{ username: 'alice', state: 'approved' }] })
    await send('Note Hook', noteHook({ iid: 7, actor: 'carol' }))
    await send('Pipeline Hook', pipelineHook({ iid: 7, status: 'failed' }))
    expect(text()[0]).toContain('Checks failing')
    await mr('merge', { iid: 7, state: 'merged', actor: 'carol' })
    const [message] = h.slack.messagesIn(CHANNEL)
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(h.slack.count('chat.update')).toBeGreaterThan(0)
    expect(JSON.stringify(message!.blocks)).toContain('[Merged]')
    expect(JSON.stringify(message!.blocks)).toContain('Approved by alice')
    expect(JSON.stringify(message!.blocks)).toContain('1 comment')
    // The author stays bob although the later hooks were sent by others (GitLab's hooks carry only author_id).
    expect(JSON.stringify(message!.blocks)).toContain('acme/api · bob ·')
    expect([...message!.reactions].sort()).toEqual(['red_circle', 'speech_balloon', 'twisted_rightwards_arrows', 'white_check_mark'])
  })

  it('a merged results pipeline (on the merge ref, another commit) counts for its merge request', async () => {
    await mr('open', { iid: 8 })
    await send('Pipeline Hook', pipelineHook({ iid: 8, status: 'success', head: 'f'.repeat(40), ref: 'refs/merge-requests/8/merge' }))
    expect(text()[0]).toContain('Checks passing')
  })

  it('a resend with the same Idempotency-Key is a duplicate; the Event UUID, new on each request, does not matter', async () => {
    await mr('open', { iid: 9 })
    const payload = noteHook({ iid: 9 })
    expect((await send('Note Hook', payload, { deliveryId: 'idem-1' })).body.status).toBe('accepted')
    expect((await send('Note Hook', payload, { deliveryId: 'idem-1' })).body).toMatchObject({ status: 'ignored', reason: 'duplicate_delivery' })
    expect(text()[0]).toContain('1 comment')
  })

  it('without an Idempotency-Key (GitLab before 17.4) the same body is a duplicate by its digest', async () => {
    await mr('open', { iid: 10 })
    const body = JSON.stringify(noteHook({ iid: 10 }))
    const post = () => fetch(`${h.service!.url}/webhook/gitlab`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook', 'x-gitlab-token': 'test-webhook-secret-0f9d2c' }, body })
    expect(((await (await post()).json()) as { status: string }).status).toBe('accepted')
    expect(await (await post()).json()).toMatchObject({ reason: 'duplicate_delivery' })
  })

  it('a wrong or missing X-Gitlab-Token is 401 and nothing is posted', async () => {
    expect((await send('Merge Request Hook', mergeRequestHook('open', { iid: 11 }), { secret: 'not-the-secret' })).status).toBe(401)
    const res = await fetch(`${h.service!.url}/webhook/gitlab`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook' }, body: '{}' })
    expect(res.status).toBe(401)
    expect(h.slack.calls).toHaveLength(0)
  })

  it('a project in a nested group goes where its group/subgroup key maps it', async () => {
    await mr('open', { iid: 12, project: 'platform/backend/api' })
    expect(text(NESTED)).toHaveLength(1)
    expect(text(NESTED)[0]).toContain('platform/backend/api')
    expect(text(CHANNEL)).toHaveLength(0)
  })

  it('drafts wait, by the draft field or a Draft: title; marking it ready posts', async () => {
    await mr('open', { iid: 13, draft: true })
    await mr('open', { iid: 14, title: 'Draft: Add rate limiting' })
    expect(h.slack.calls).toHaveLength(0)
    expect(h.service!.entries().filter((e) => e.msg === 'ignored webhook event' && e.reason === 'draft')).toHaveLength(2)
    await mr('update', { iid: 13, changes: { draft: { previous: true, current: false } } })
    expect(text()).toHaveLength(1)
  })

  it('a comment on an issue is not a merge request', async () => {
    expect((await send('Note Hook', gitlabFixture('note_issue'))).body).toMatchObject({ status: 'ignored', reason: 'not_a_pull_request' })
  })

  it('ignore.labels: a merge request labelled wip is not announced (200, filtered), nor by a comment; removing the label announces it', async () => {
    expect((await mr('open', { iid: 20, labels: ['WIP', 'API'] })).body).toEqual({ status: 'ignored', reason: 'filtered' })
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'ignored webhook event', reason: 'filtered', filter: 'label', pr: 20 }))
    // A Note Hook carries no labels; the comment must not announce what the filter held back.
    await send('Note Hook', noteHook({ iid: 20, actor: 'carol' }))
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(0)
    expect((await mr('update', { iid: 20, labels: ['API'], changes: labelChanges(['WIP', 'API'], ['API']) })).body).toEqual({ status: 'accepted' })
    expect(text()).toHaveLength(1)
    expect(text()[0]).toContain('MR !20: Add rate limiting')
  })

  it('ignore.labels: a label added after the announcement keeps the message, which keeps being updated', async () => {
    await mr('open', { iid: 21, labels: [] })
    expect((await mr('update', { iid: 21, labels: ['wip'], changes: labelChanges([], ['wip']) })).body).toEqual({ status: 'accepted' })
    await mr('merge', { iid: 21, state: 'merged', actor: 'carol', labels: ['wip'] })
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(JSON.stringify(h.slack.messagesIn(CHANNEL)[0]!.blocks)).toContain('[Merged]')
  })
})
