import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import type { SlackMessageState } from '../helpers/fake-slack.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { linkUrlOf, reviewActionPayload, testTalkBack, viewSubmissionPayload } from '../helpers/review-modal.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { sendInteraction, TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'

/**
 * Issue 33.3 on the real server: the review actions on a pull request's message open a modal (views.open with
 * the click's trigger_id), its submission is answered at once and made at the (fake) host with the person's
 * own token for the head commit the message showed, and the modal shows the outcome; the message changes
 * only when the host's webhook arrives. Requests are signed as Slack signs them; Slack and the hosts are fakes.
 */
const CHANNEL = 'C0000000007'
const ALICE = 'U0000ALICE'
const BOB = 'U00000BOB0'

interface HostCase {
  /** The mapping that routes the pull request to CHANNEL. */
  mappings: Record<string, Record<string, unknown>>
  /** The fake host's key of the pull request (`owner/repo#n`). */
  pr: string
  author: string
  head: string | undefined
  opened: () => { event: string; payload: unknown }
  approvedBy: (login: string) => { event: string; payload: unknown }
}

const githubOpened = pullRequest('opened', 7)
const HOSTS: Record<Provider, HostCase> = {
  github: {
    mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } }, pr: 'Codertocat/Hello-World#7', author: 'Codertocat',
    head: String(githubOpened.pull_request.head.sha),
    opened: () => ({ event: 'pull_request', payload: pullRequest('opened', 7) }),
    approvedBy: (login) => ({ event: 'pull_request_review', payload: review('approved', 7, login) }),
  },
  gitlab: {
    mappings: { acme: { api: { channel: CHANNEL } } }, pr: 'acme/api#7', author: 'bob', head: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    opened: () => ({ event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 7 }) }),
    approvedBy: (login) => ({ event: 'Merge Request Hook', payload: mergeRequestHook('approval', { iid: 7, actor: login, reviewers: [{ username: login, state: 'approved' }] }) }),
  },
  bitbucket: {
    mappings: { acme: { api: { channel: CHANNEL } } }, pr: 'acme/api#7', author: 'bob', head: undefined,
    opened: () => ({ event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id: 7 }) }),
    approvedBy: (login) => ({ event: 'pullrequest:approved', payload: bitbucketPayload('pullrequest:approved', { id: 7, actor: login }) }),
  },
}

const asView = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>
const textOf = (view: Record<string, unknown>) => JSON.stringify(view.blocks)

function scenario(provider: Provider) {
  const facts = HOSTS[provider]
  const h = usePrherald({ provider })
  let fake: FakeOAuthHost
  let talkBack: ReturnType<typeof testTalkBack>

  beforeEach(async () => {
    fake = await startFakeOAuthHost(provider, {
      accounts: [{ login: 'alice', accountId: '557058:alice', name: 'Alice' }, { login: facts.author, accountId: `557058:${facts.author}`, name: 'Author' }],
    })
    fake.authors.set(facts.pr, facts.author)
    if (facts.head) fake.heads.set(facts.pr, facts.head)
  })
  afterEach(async () => fake.close())

  const start = async (talkBackConfig: Record<string, unknown> = { reviews: 'on' }) => {
    writeConfig(h.dir.path, { git_provider: provider, slack: { talk_back: talkBackConfig }, mappings: facts.mappings })
    const env = h.env({ SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET })
    talkBack = testTalkBack({ fake, env, dir: h.dir.path })
    await h.start(env, { talkBack: talkBack.build })
    await send(facts.opened())
  }
  const send = async (delivery: { event: string; payload: unknown }) => {
    expect((await deliver(h.service!.url, provider, delivery)).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  }
  const message = (): SlackMessageState => {
    const messages = h.slack.messagesIn(CHANNEL)
    expect(messages).toHaveLength(1)
    return messages[0]!
  }
  /** Clicks a review action on the message; resolves with the modal views.open opened. */
  const open = async (action: string, user = ALICE, style: 'menu' | 'buttons' = 'menu') => {
    const before = h.slack.count('views.open')
    const res = await sendInteraction(h.service!.url, reviewActionPayload({ user, channel: CHANNEL, messageTs: message().ts, action, style }))
    expect(res.status).toBe(200)
    await waitFor('views.open', () => h.slack.count('views.open') > before)
    const call = h.slack.calls.filter((c) => c.method === 'views.open').at(-1)!
    const viewId = [...h.slack.modals.keys()].at(-1)!
    return { view: asView(call.body.view), viewId }
  }
  const submit = async (opened: { view: Record<string, unknown>; viewId: string }, text: string | undefined, user = ALICE, triggerId?: string) => {
    const res = await sendInteraction(h.service!.url, viewSubmissionPayload({ user, viewId: opened.viewId, view: opened.view, text, ...(triggerId ? { triggerId } : {}) }))
    expect(res.status).toBe(200)
    const body = await res.text()
    return (body === '' ? undefined : JSON.parse(body)) as { response_action: string; view?: Record<string, unknown>; errors?: Record<string, string> } | undefined
  }
  /** The modal once views.update put the outcome in it. */
  const outcome = async (viewId: string) => {
    await waitFor('views.update', () => (h.slack.modals.get(viewId)?.updates ?? 0) > 0)
    return textOf(h.slack.modals.get(viewId)!.view)
  }
  return { facts, h, fake: () => fake, talkBack: () => talkBack, start, send, message, open, submit, outcome }
}

describe.each(['github', 'gitlab', 'bitbucket'] as const)('review from Slack on %s', (provider) => {
  const s = scenario(provider)

  it('approve from the modal: the review at the host as the person, for the head the message showed; the message moves only with the webhook', async () => {
    await s.start()
    await s.talkBack().link(ALICE, 'alice')
    const opened = await s.open('approve')
    expect(opened.view).toMatchObject({ type: 'modal', callback_id: 'prherald_review_form', title: { text: 'Approve' } })
    // Only an opaque id goes to Slack: nothing that names the pull request.
    expect(String(opened.view.private_metadata)).toMatch(/^[\w-]{20,}$/)
    expect(String(opened.view.private_metadata)).not.toMatch(/#|acme|Hello|api/)
    expect(textOf(opened.view)).toContain('alice')

    const updatesBefore = s.h.slack.count('chat.update')
    const answer = await s.submit(opened, 'Looks good')
    expect(answer?.response_action).toBe('update')
    expect(textOf(answer!.view!)).toContain('Submitting')
    expect(await s.outcome(opened.viewId)).toContain('Approved on')
    expect(s.fake().reviews).toEqual([expect.objectContaining({ pr: s.facts.pr, kind: 'approve', author: 'alice', ...(provider === 'bitbucket' ? {} : { sha: s.facts.head }) })])
    // GitLab and Bitbucket take the text as a second call: a comment by the person.
    if (provider !== 'github') expect(s.fake().comments).toEqual([expect.objectContaining({ body: 'Looks good', author: 'alice' })])
    expect(s.h.slack.count('chat.update')).toBe(updatesBefore)
    const audit = s.h.service!.entries().filter((e) => e.msg === 'audit: talk-back action')
    expect(audit).toEqual([expect.objectContaining({ slack_user: ALICE, host: provider, host_login: 'alice', action: 'approve', outcome: 'done' })])
    expect(s.h.service!.logs.join('\n')).not.toMatch(/(ghu|at)_[0-9a-f]{24}/)

    await s.send(s.facts.approvedBy('alice'))
    expect(JSON.stringify(s.message().blocks)).toMatch(/Approved by [^"]*alice/i)
  })

  it('request changes with no text is refused by the modal; with text it is made', async () => {
    await s.start()
    await s.talkBack().link(ALICE, 'alice')
    const opened = await s.open('request_changes')
    expect(JSON.stringify(opened.view.blocks)).toContain('"optional":false')
    expect(await s.submit(opened, '   ')).toMatchObject({ response_action: 'errors', errors: { review_text: expect.stringContaining('needs a comment') } })
    expect(s.fake().reviews).toEqual([])
    expect((await s.submit(opened, 'Please add a test'))?.response_action).toBe('update')
    expect(await s.outcome(opened.viewId)).toContain('Changes requested on')
    expect(s.fake().reviews).toEqual([expect.objectContaining({ kind: 'request_changes', author: 'alice' })])
  })

  it('the author approving their own pull request is shown the host\'s refusal in its words', async () => {
    await s.start()
    await s.talkBack().link(BOB, s.facts.author)
    const opened = await s.open('approve', BOB)
    await s.submit(opened, undefined, BOB)
    const said = { github: 'Can not approve your own pull request', gitlab: '401', bitbucket: 'You can&#39;t approve your own pull request.' }[provider]
    const shown = await s.outcome(opened.viewId)
    expect(shown).toContain('refused')
    if (provider !== 'gitlab') expect(shown.replaceAll('\'', '&#39;')).toContain(said)
    expect(s.fake().reviews).toEqual([])
    expect(s.h.service!.entries().filter((e) => e.msg === 'audit: talk-back action')).toEqual([expect.objectContaining({ outcome: 'refused', host_login: s.facts.author })])
  })

  it('a person who is not linked is offered the link, and no form is opened', async () => {
    await s.start()
    const opened = await s.open('approve', BOB)
    expect(opened.view.private_metadata).toBeUndefined()
    expect(opened.view.submit).toBeUndefined()
    expect(textOf(opened.view)).toContain(linkUrlOf(BOB, provider))
  })
})
