import { expect, it, onTestFinished } from 'vitest'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { useReplicaSet } from '../helpers/replica-set.ts'
import { reviewActionPayload, viewSubmissionPayload } from '../helpers/review-modal.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { sendInteraction } from '../helpers/slack-interaction.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { ALICE, CHANNEL, linkAccount, talkBackEnv, TEST_PUBLIC_URL } from '../helpers/talk-back-setup.ts'

/**
 * Issue 33, "Done when": review from Slack on PostgreSQL with two replicas (real prherald-server processes).
 * The click reaches one replica, the submission another; Slack's retry of the submission, and the same form
 * submitted again, reach either: one review at the host. Its webhook then moves the message.
 */
const set = useReplicaSet({ backend: 'postgres', oauth: { kind: 'github' } })

/** Two replicas with reviews on, Alice linked, and the pull request's message posted and stored. */
async function twoReplicasWithMessage() {
  const { dir, slack, database, fake } = set()
  writeConfig(dir.path, {
    git_provider: 'github', server: { log_format: 'json' }, slack: { talk_back: { reviews: 'on' } },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  })
  const env = set().env('github', talkBackEnv(fake, { publicUrl: TEST_PUBLIC_URL }))
  const replicas = [await set().spawn(env), await set().spawn(env)] as const
  const store = createPostgresStore({ pool: await openPostgresPool({ url: database.url, onIdleError: () => {} }) })
  onTestFinished(() => store.close())
  await linkAccount(store, { fake, key: env.PRHERALD_TOKEN_KEY! })
  expect((await deliver(replicas[0].url, 'github', { event: 'pull_request', payload: pullRequest('opened', 9) })).status).toBe(200)
  await waitFor('the message', () => slack.messages.size === 1)
  const message = [...slack.messages.values()][0]!
  // The batch that posted it is committed (the row open), as it is long before anyone can click.
  await waitFor('the stored message', async () => (await store.findMessages({ provider: 'github', repository: 'Codertocat/Hello-World', prNumber: 9 }))[0]?.state === 'open')
  return { slack, fake, replicas, message }
}

it('a submission retried to the other replica, and the same form submitted there again, make one review', async () => {
  const { slack, fake, replicas: [a, b], message } = await twoReplicasWithMessage()

  expect((await sendInteraction(a.url, reviewActionPayload({ user: ALICE, channel: message.channel, messageTs: message.ts, action: 'approve' }))).status).toBe(200)
  // Under load the look-ups may pass 1.5 s: the modal then opens as "Loading…" and becomes the form.
  await waitFor('the form', () => slack.modals.get('VMODAL1')?.view.callback_id === 'prherald_review_form')
  const view = slack.modals.get('VMODAL1')!.view
  const submission = viewSubmissionPayload({ user: ALICE, viewId: 'VMODAL1', view, text: 'LGTM' })
  const first = await sendInteraction(b.url, submission)
  expect((await first.json() as { response_action: string }).response_action).toBe('update')
  const retried = await sendInteraction(a.url, submission)
  expect(retried.status).toBe(200)
  expect(await retried.text()).toBe('')
  const again = await (await sendInteraction(a.url, viewSubmissionPayload({ user: ALICE, viewId: 'VMODAL1', view, text: 'LGTM' }))).json() as { view: { blocks: unknown[] } }
  expect(JSON.stringify(again.view.blocks)).toContain('already submitted')
  await waitFor('the outcome', () => JSON.stringify(slack.modals.get('VMODAL1')!.view.blocks).includes('Approved on'))
  expect(fake.reviews).toEqual([expect.objectContaining({ kind: 'approve', author: 'alice', body: 'LGTM' })])

  const updates = slack.count('chat.update')
  expect((await deliver(b.url, 'github', { event: 'pull_request_review', payload: review('approved', 9, 'alice') })).status).toBe(200)
  await waitFor('the approval on the message', () => slack.count('chat.update') > updates && JSON.stringify([...slack.messages.values()][0]!.blocks).includes('Approved by alice'))
})

it('five reviews a minute per person across replicas: the sixth, submitted to either replica, is refused', async () => {
  const { slack, fake, replicas, message } = await twoReplicasWithMessage()

  // Each form is opened and submitted on one replica, the next on the other: three reviews each way.
  const review = async (i: number) => {
    const replica = replicas[i % 2]!
    const viewId = `VMODAL${slack.modals.size + 1}`
    expect((await sendInteraction(replica.url, reviewActionPayload({ user: ALICE, channel: message.channel, messageTs: message.ts, action: 'comment' }))).status).toBe(200)
    await waitFor('the form', () => slack.modals.get(viewId)?.view.callback_id === 'prherald_review_form')
    const res = await sendInteraction(replica.url, viewSubmissionPayload({ user: ALICE, viewId, view: slack.modals.get(viewId)!.view, text: `note ${i}` }))
    expect(res.status).toBe(200)
    return { viewId, answer: await res.json() as { response_action: string; errors?: Record<string, string> } }
  }
  for (let i = 0; i < 5; i++) {
    const { viewId, answer } = await review(i)
    expect(answer.response_action).toBe('update')
    await waitFor('the outcome', () => slack.modals.get(viewId)!.view.callback_id === undefined)
  }
  // Each replica took fewer than five: counted apart, both would take the sixth.
  const sixth = await review(5)
  expect(sixth.answer).toMatchObject({ response_action: 'errors', errors: { review_text: expect.stringContaining('please wait a moment') } })
  expect(fake.reviews).toHaveLength(5)
})
