import { afterEach, describe, expect, it } from 'vitest'
import { startFakeSocketMode, type FakeSocketMode } from '../helpers/fake-socket-mode.ts'
import { reviewActionPayload, viewSubmissionPayload } from '../helpers/review-modal.ts'
import { sendInteraction } from '../helpers/slack-interaction.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { ALICE, BOB, CHANNEL } from '../helpers/talk-back-setup.ts'
import { asView, scenario, textOf } from './review-scenario.ts'

/**
 * Issue 33.3 and 33.5, the guards of review from Slack on the real server: what the modal's client sends back
 * is never trusted (an unknown form id, another person's form), five reviews a minute per person, Slack's
 * retry of a submission makes one review, the actions are rendered as configured and not at all when off,
 * GitLab without "request changes", and Socket Mode's acknowledgement carrying the submission's answer.
 */
const s = scenario('github')
const actionsOf = () => (s.message().blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>).find((b) => b.type === 'actions')?.elements ?? []
const rejected = () => s.h.service!.entries().filter((e) => e.msg === 'rejected slack interaction').map((e) => e.reason)

describe('what the modal sends back is not trusted', () => {
  it('an unknown form id is refused and nothing is reviewed', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    const opened = await s.open('approve')
    const answer = await s.submit({ view: { ...opened.view, private_metadata: 'github:Codertocat/Hello-World#7' }, viewId: opened.viewId }, 'ok')
    expect(answer?.response_action).toBe('update')
    expect(textOf(answer!.view!)).toContain('not one prherald can take')
    const forged = await s.submit({ view: { ...opened.view, private_metadata: 'AAAAAAAAAAAAAAAAAAAAAAAA' }, viewId: opened.viewId }, 'ok')
    expect(textOf(forged!.view!)).toContain('not one prherald can take')
    expect(rejected()).toEqual(['unknown_review_form', 'unknown_review_form'])
    expect(s.fake().reviews).toEqual([])
  })

  it('another person\'s form is refused, and stays good for its owner', async () => {
    await s.start()
    await s.link(ALICE, 'alice')
    await s.link(BOB, 'Codertocat')
    const opened = await s.open('comment')
    const answer = await s.submit(opened, 'as someone else', BOB)
    expect(textOf(answer!.view!)).toContain('opened by someone else')
    expect(rejected()).toEqual(['not_the_form_owner'])
    expect(s.fake().reviews).toEqual([])
    expect((await s.submit(opened, 'mine'))?.response_action).toBe('update')
    await s.outcome(opened.viewId)
    expect(s.fake().reviews).toEqual([expect.objectContaining({ kind: 'comment', body: 'mine', author: 'alice' })])
  })
})

it('five reviews a minute per person: the sixth is refused politely in the modal, the form kept', async () => {
  await s.start()
  await s.link(ALICE, 'alice')
  for (let i = 1; i <= 5; i++) {
    const opened = await s.open('comment')
    expect((await s.submit(opened, `note ${i}`))?.response_action).toBe('update')
    await s.outcome(opened.viewId)
  }
  const sixth = await s.open('comment')
  expect(await s.submit(sixth, 'one too many')).toMatchObject({ response_action: 'errors', errors: { review_text: expect.stringContaining('please wait a moment') } })
  expect(s.fake().reviews).toHaveLength(5)
})

it('Slack\'s retry of a submission, and a second submission of the same form, make one review', async () => {
  await s.start()
  await s.link(ALICE, 'alice')
  const opened = await s.open('approve')
  const payload = viewSubmissionPayload({ user: ALICE, viewId: opened.viewId, view: opened.view, text: 'LGTM' })
  expect((await (await sendInteraction(s.h.service!.url, payload)).json() as { response_action: string }).response_action).toBe('update')
  // The same request again (its trigger_id): acknowledged, not acted on.
  const retry = await sendInteraction(s.h.service!.url, payload)
  expect(retry.status).toBe(200)
  expect(await retry.text()).toBe('')
  // The same form submitted again under a new trigger_id: the form was taken.
  const again = await s.submit(opened, 'LGTM')
  expect(textOf(again!.view!)).toContain('already submitted')
  await s.outcome(opened.viewId)
  expect(s.fake().reviews).toHaveLength(1)
})

describe('rendering', () => {
  it('menu (the default): one overflow menu beside Start review, each option naming only its action', async () => {
    await s.start({ reviews: 'on' })
    expect(actionsOf().map((e) => e.type)).toEqual(['button', 'overflow'])
    const menu = actionsOf()[1] as { action_id: string; options: Array<{ value: string; text: { text: string } }> }
    expect(menu.action_id).toBe('prherald_review_menu')
    expect(menu.options.map((o) => [o.value, o.text.text])).toEqual([['approve', 'Approve'], ['request_changes', 'Request changes'], ['comment', 'Comment']])
  })

  it('buttons: three buttons, and a click on one opens its form', async () => {
    await s.start({ reviews: 'on', review_actions: 'buttons' })
    expect(actionsOf().map((e) => [e.action_id, e.value])).toEqual([
      ['prherald_start_review', 'github:Codertocat/Hello-World#7'],
      ['prherald_review_approve', 'approve'], ['prherald_review_request_changes', 'request_changes'], ['prherald_review_comment', 'comment'],
    ])
    await s.link(ALICE, 'alice')
    const opened = await s.open('request_changes', ALICE, 'buttons')
    expect(opened.view).toMatchObject({ callback_id: 'prherald_review_form', title: { text: 'Request changes' } })
  })

  it('reviews off (talk-back on for thread replies): no review action on the message, and a click sent anyway opens no form', async () => {
    await s.start({ reviews: 'off', thread_replies: 'linked', review_actions: 'buttons' })
    expect(actionsOf().map((e) => e.action_id)).toEqual(['prherald_start_review'])
    await s.link(ALICE, 'alice')
    const opened = await s.open('approve')
    expect(opened.view.private_metadata).toBeUndefined()
    expect(textOf(opened.view)).toContain('off for this repository')
  })

  it('slack.talk_back turning nothing on: no review action, and a click is ignored', async () => {
    await s.start(null)
    expect(actionsOf().map((e) => e.action_id)).toEqual(['prherald_start_review'])
    const res = await sendInteraction(s.h.service!.url, reviewActionPayload({ user: ALICE, channel: CHANNEL, messageTs: s.message().ts, action: 'approve' }))
    expect(res.status).toBe(200)
    expect(s.h.slack.count('views.open')).toBe(0)
  })
})

it('the click\'s HTTP 200 follows views.open, not a token refresh the host holds: the form comes after it', async () => {
  await s.start()
  await s.link(ALICE, 'alice', { expiresAt: Date.now() + 60_000 })
  const release = s.fake().holdRefreshes()
  try {
    let acked = false
    const ack = sendInteraction(s.h.service!.url, reviewActionPayload({ user: ALICE, channel: CHANNEL, messageTs: s.message().ts, action: 'approve' }))
      .then((res) => { acked = true; return res })
    await waitFor('the refresh at the host', () => s.fake().held === 1)
    await waitFor('the acknowledgement while the refresh is held', () => acked)
    expect(s.fake().held).toBe(1)
    expect(s.fake().refreshes).toBe(0)
    expect((await ack).status).toBe(200)
    expect(textOf(asView(s.h.slack.calls.find((c) => c.method === 'views.open')!.body.view))).toContain('Loading')
  } finally {
    release()
  }
  await waitFor('the form in the modal', () => [...s.h.slack.modals.values()].at(-1)?.view.callback_id === 'prherald_review_form')
  expect(s.fake().refreshes).toBe(1)
})

describe('GitLab without request changes', () => {
  const g = scenario('gitlab')
  it('a server older than 19.2 is not asked to request changes: the modal says so; approving still works', async () => {
    g.fake().gitlabVersion = '17.11.0-ee'
    await g.start()
    await g.link(ALICE, 'alice')
    const refused = await g.open('request_changes')
    expect(refused.view.private_metadata).toBeUndefined()
    expect(textOf(refused.view)).toContain('cannot request changes')
    const approve = await g.open('approve')
    expect(approve.view.callback_id).toBe('prherald_review_form')
  })
})

describe('over Socket Mode', () => {
  let sockets: FakeSocketMode | undefined
  afterEach(async () => {
    await s.h.stop()
    await sockets?.close()
  })
  const startOverSocket = async () => {
    sockets = await startFakeSocketMode()
    s.h.slack.socketUrl = sockets.socketUrl
    await s.start({ reviews: 'on' }, { slack: { socket_mode: true }, env: { SLACK_APP_TOKEN: 'xapp-1-A0PRHERALD-1-abc' } })
    await waitFor('the socket', () => sockets!.connections.length === 1)
  }

  it('the click\'s acknowledgement follows views.open, not a token refresh the host holds', async () => {
    await startOverSocket()
    await s.link(ALICE, 'alice', { expiresAt: Date.now() + 60_000 })
    const release = s.fake().holdRefreshes()
    try {
      let acked = false
      const ack = sockets!.envelope('interactive', reviewActionPayload({ user: ALICE, channel: CHANNEL, messageTs: s.message().ts, action: 'approve' }), 'env-held')
        .then((answer) => { acked = true; return answer })
      await waitFor('the refresh at the host', () => s.fake().held === 1)
      await waitFor('the acknowledgement while the refresh is held', () => acked)
      expect(s.fake().held).toBe(1)
      expect(s.fake().refreshes).toBe(0)
      expect(await ack).toEqual({ envelope_id: 'env-held' })
      expect(textOf(asView(s.h.slack.calls.find((c) => c.method === 'views.open')!.body.view))).toContain('Loading')
    } finally {
      release()
    }
    await waitFor('the form in the modal', () => [...s.h.slack.modals.values()].at(-1)?.view.callback_id === 'prherald_review_form')
    expect(s.fake().refreshes).toBe(1)
  })
  it('the submission\'s acknowledgement carries the response_action, as the HTTP 200 does', async () => {
    await startOverSocket()
    await s.link(ALICE, 'alice')
    const click = reviewActionPayload({ user: ALICE, channel: CHANNEL, messageTs: s.message().ts, action: 'approve' })
    expect(await sockets!.envelope('interactive', click, 'env-click')).toEqual({ envelope_id: 'env-click' })
    await waitFor('views.open', () => s.h.slack.count('views.open') === 1)
    const view = asView(s.h.slack.calls.find((c) => c.method === 'views.open')!.body.view)
    const ack = await sockets!.envelope('interactive', viewSubmissionPayload({ user: ALICE, viewId: 'VMODAL1', view, text: 'LGTM' }), 'env-submit')
    expect(ack).toMatchObject({ envelope_id: 'env-submit', payload: { response_action: 'update' } })
    expect(await s.outcome('VMODAL1')).toContain('Approved on')
    expect(s.fake().reviews).toHaveLength(1)
  })
})
