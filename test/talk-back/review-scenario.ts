import { afterEach, beforeEach, expect } from 'vitest'
import { startFakeOAuthHost, type FakeHostKind, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import type { SlackMessageState } from '../helpers/fake-slack.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { reviewActionPayload, viewSubmissionPayload } from '../helpers/review-modal.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { sendInteraction, TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { ALICE, aliceAndAuthor, CHANNEL, linkInSqlite, talkBackEnv, TEST_PUBLIC_URL, type LinkOptions } from '../helpers/talk-back-setup.ts'
import { BITBUCKET_HEAD, bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'

/**
 * The review-from-Slack scenario shared by its test files. Issue 33.3 on the real server: the review actions on a pull request's message open a modal (views.open with
 * the click's trigger_id), its submission is answered at once and made at the (fake) host with the person's
 * own token for the head commit the message showed, and the modal shows the outcome; the message changes
 * only when the host's webhook arrives. Requests are signed as Slack signs them; Slack and the hosts are fakes.
 */

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
const HOSTS: Record<FakeHostKind, HostCase> = {
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
    // The REST read of the pull request gives the full hash; the webhook its first 12 characters.
    mappings: { acme: { api: { channel: CHANNEL } } }, pr: 'acme/api#7', author: 'bob', head: BITBUCKET_HEAD,
    opened: () => ({ event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id: 7 }) }),
    approvedBy: (login) => ({ event: 'pullrequest:approved', payload: bitbucketPayload('pullrequest:approved', { id: 7, actor: login }) }),
  },
}

export const asView = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>
export const textOf = (view: Record<string, unknown>) => JSON.stringify(view.blocks)

export function scenario(provider: FakeHostKind) {
  const facts = HOSTS[provider]
  const h = usePrherald({ provider })
  let fake: FakeOAuthHost
  let env: Record<string, string | undefined>

  beforeEach(async () => {
    fake = await startFakeOAuthHost(provider, { accounts: aliceAndAuthor(facts.author) })
    fake.authors.set(facts.pr, facts.author)
    if (facts.head) fake.heads.set(facts.pr, facts.head)
    // GitLab sets a requested-changes state only for the merge request's reviewers.
    if (provider === 'gitlab') fake.reviewers.set(facts.pr, ['alice'])
  })
  afterEach(async () => fake.close())

  /** Starts the server with `slack.talk_back` as given (and `slack` keys or variables besides), then opens the pull request. */
  const start = async (talkBackConfig: Record<string, unknown> | null = { reviews: 'on' }, extra: { slack?: Record<string, unknown>; env?: Record<string, string> } = {}) => {
    writeConfig(h.dir.path, { git_provider: provider, slack: { ...(talkBackConfig ? { talk_back: talkBackConfig } : {}), ...extra.slack }, mappings: facts.mappings })
    env = h.env({ SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...talkBackEnv(fake, { publicUrl: TEST_PUBLIC_URL }), ...extra.env })
    await h.start(env)
    await send(facts.opened())
  }
  const link = (slackUser: string, login: string, options: Pick<LinkOptions, 'expiresAt'> = {}) => linkInSqlite(h.dir.path, { fake, key: env.PRHERALD_TOKEN_KEY!, slackUser, login, ...options })
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
    const viewId = [...h.slack.modals.keys()].at(-1)!
    // A slow start (the look-ups past 1.5 s) opens the modal as "Loading…" and then updates it: the view it became.
    await waitFor('the modal', () => !textOf(h.slack.modals.get(viewId)!.view).includes('Loading'))
    return { view: h.slack.modals.get(viewId)!.view, viewId, opened: asView(h.slack.calls.filter((c) => c.method === 'views.open').at(-1)!.body.view) }
  }
  const submit = async (opened: { view: Record<string, unknown>; viewId: string }, text: string | undefined, user = ALICE, triggerId?: string) => {
    const res = await sendInteraction(h.service!.url, viewSubmissionPayload({ user, viewId: opened.viewId, view: opened.view, text, ...(triggerId ? { triggerId } : {}) }))
    expect(res.status).toBe(200)
    const body = await res.text()
    return (body === '' ? undefined : JSON.parse(body)) as { response_action: string; view?: Record<string, unknown>; errors?: Record<string, string> } | undefined
  }
  /** The modal once views.update put the outcome in it. */
  const outcome = async (viewId: string) => {
    // The form has a callback_id; the outcome views.update puts in its place is a notice.
    await waitFor('views.update', () => h.slack.modals.get(viewId)?.view.callback_id === undefined)
    return textOf(h.slack.modals.get(viewId)!.view)
  }
  /** Stops the server and starts it again on the same database and variables (what a restart after a crash finds). */
  const restart = async () => {
    await h.stop()
    await h.start(env)
  }
  return { facts, h, fake: () => fake, link, start, restart, send, message, open, submit, outcome }
}

