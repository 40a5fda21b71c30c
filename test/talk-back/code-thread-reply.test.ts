import { describe, expect, it } from 'vitest'
import type { FakeHostKind } from '../helpers/fake-oauth.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { commentHook } from '../helpers/gitlab-fixtures.ts'
import { viewSubmissionPayload } from '../helpers/review-modal.ts'
import { clickPayload, sendInteraction } from '../helpers/slack-interaction.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { ALICE, BOB, CHANNEL } from '../helpers/talk-back-setup.ts'
import { hostOf } from '../../src/hosts/registry.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'
import { CODE_REPLY_FORM } from '../../src/slack/decode-code-reply.ts'
import { CODE_REPLY_ACTION } from '../../src/slack/render-mirrored-comment.ts'
import { asView, scenario, textOf } from './review-scenario.ts'
import { deleted, edited, eventBody, replyEvent } from '../helpers/thread-reply-events.ts'
import { sendSignedSlack } from '../helpers/slack-requests.ts'

/**
 * Replies go back to the code thread, on the real server with each (fake) host: a code comment's webhook is
 * mirrored into the message's thread with a Reply button; its click opens a modal through the one inbound
 * pipeline, and what is submitted is a reply in that code thread at the host, as the person's linked account.
 * The reply's own webhook then comes back and is not mirrored (no echo).
 */
type Json = Record<string, any>

/** A code comment on pull request 7 by `author`, as each host's webhook carries it, and the thread a reply goes to. */
const CODE: Record<FakeHostKind, (author: string, body: string, id: number) => { delivery: { event: string; payload: Json }; thread: string }> = {
  github(author, body, id) {
    const payload = githubExample('pull_request_review_comment', 'created', (p) => 'line' in (p.comment as object)) as Json
    payload.pull_request.number = 7
    payload.pull_request.draft = false
    Object.assign(payload.comment, { id, body, path: 'src/cache.ts', line: 12 })
    delete payload.comment.in_reply_to_id
    payload.comment.user.login = author
    return { delivery: { event: 'pull_request_review_comment', payload }, thread: '700' }
  },
  gitlab(author, body, id) {
    const payload = commentHook({ iid: 7, actor: author }, { id, note: body, diff: { path: 'lib/cache.rb', line: 12, discussion: 'e'.repeat(40) } })
    return { delivery: { event: 'Note Hook', payload }, thread: 'e'.repeat(40) }
  },
  bitbucket(author, body, id) {
    const payload = bitbucketPayload('pullrequest:comment_created', { id: 7, actor: author }) as Json
    payload.comment = {
      ...payload.comment, id, content: { raw: body, markup: 'markdown' }, inline: { from: null, to: 12, path: 'src/cache.ts' },
      ...(id === 700 ? {} : { parent: { id: 700 } }), links: { html: { href: `https://bitbucket.org/acme/api/pull-requests/7/_/diff#comment-${id}` } },
    }
    return { delivery: { event: 'pullrequest:comment_created', payload }, thread: '700' }
  },
}

describe.each(['github', 'gitlab', 'bitbucket'] as const)('%s: a reply to a mirrored code comment', (provider) => {
  const s = scenario(provider)

  it('goes from the Reply button\'s modal into that code thread, as the linked person, and is not mirrored back', async () => {
    await s.start({ mirror: 'all', thread_replies: 'linked' })
    await s.link(ALICE, 'alice')
    const code = CODE[provider]('dave', 'Why not a `Map`?', 700)
    await s.send(code.delivery)
    const replies = s.h.slack.repliesTo(CHANNEL, s.message().ts)
    expect(replies).toHaveLength(1)
    const button = (replies[0]!.blocks as Json[]).flatMap((b) => b.elements ?? []).find((e: Json) => e.action_id === CODE_REPLY_ACTION)
    expect(button).toBeDefined()

    const before = s.h.slack.count('views.open')
    const click = await sendInteraction(s.h.service!.url, clickPayload({ user: ALICE, value: button.value, channel: CHANNEL, messageTs: replies[0]!.ts, actionId: CODE_REPLY_ACTION }))
    expect(click.status).toBe(200)
    await waitFor('views.open', () => s.h.slack.count('views.open') > before)
    const viewId = [...s.h.slack.modals.keys()].at(-1)!
    const opened = asView(s.h.slack.calls.filter((c) => c.method === 'views.open').at(-1)!.body.view)
    expect(opened.callback_id).toBe(CODE_REPLY_FORM.callbackId)

    const submission = viewSubmissionPayload({ user: ALICE, viewId, view: opened })
    ;(submission.view as Json).state = { values: { [CODE_REPLY_FORM.block]: { [CODE_REPLY_FORM.action]: { type: 'plain_text_input', value: 'A Map keeps the order; fixed.' } } } }
    const answer = await sendInteraction(s.h.service!.url, submission)
    expect(answer.status).toBe(200)
    // The form has a callback_id; the outcome views.update puts in its place is a notice.
    await waitFor('the outcome', () => s.h.slack.modals.get(viewId)?.view.callback_id === undefined)
    expect(textOf(s.h.slack.modals.get(viewId)!.view)).toContain('Your reply is in the code thread.')

    const made = s.fake().comments.filter((c) => c.thread !== undefined)
    expect(made).toHaveLength(1)
    expect(made[0]).toMatchObject({ pr: provider === 'github' ? 'Codertocat/Hello-World#7' : 'acme/api#7', thread: code.thread, author: 'alice' })
    expect(made[0]!.body).toMatch(/^A Map keeps the order; fixed\.\n\n\[\/\/\]: # \(prherald-reply code V\w+\)$/)

    // The host's webhook of that reply: a code comment like any other, but prherald's own, so nothing is posted.
    const echo = CODE[provider]('alice', made[0]!.body, made[0]!.id)
    await s.send(echo.delivery)
    expect(s.h.slack.repliesTo(CHANNEL, s.message().ts)).toHaveLength(1)
  })

  let eventSeq = 0
  const sendEvent = async (event: unknown) => {
    const res = await sendSignedSlack(s.h.service!.url, '/webhook/slack/events', eventBody(`Ev${provider}link${++eventSeq}`, event))
    expect(res.status).toBe(200)
  }
  /** A message's permalink as Slack writes it in a message event: `<…>`, its `&` as `&amp;`, maybe with a label. */
  const permalink = (ts: string, threadTs: string, label?: string) =>
    `<https://acme.slack.com/archives/${CHANNEL}/p${ts.replace('.', '')}?thread_ts=${threadTs}&amp;cid=${CHANNEL}${label ? `|${label}` : ''}>`

  /** Alice linked, and dave's code comment mirrored into the message's thread: the reply a permalink names. */
  const mirroredCodeComment = async () => {
    await s.start({ mirror: 'all', thread_replies: 'linked' })
    await s.link(ALICE, 'alice')
    const code = CODE[provider]('dave', 'Why not a `Map`?', 700)
    await s.send(code.delivery)
    const thread = s.message().ts
    return { code, thread, mirrored: s.h.slack.repliesTo(CHANNEL, thread)[0]! }
  }

  it('a thread reply that links to the mirrored comment goes to its code thread, the link cut; its edit and deletion follow there', async () => {
    const { code, thread, mirrored } = await mirroredCodeComment()

    const reply = replyEvent(s.h.slack, thread, ALICE, `${permalink(mirrored.ts, thread, 'this')} A *Map* keeps the order.`)
    await sendEvent(reply.event)
    await waitFor('the reply in the code thread', () => s.fake().comments.length === 1)
    expect(await s.h.service!.settle(10_000)).toBe(true)
    const [made] = s.fake().comments
    expect(made).toMatchObject({ thread: code.thread, author: 'alice', deleted: false })
    expect(made!.body).toMatch(/^A \*\*Map\*\* keeps the order\.\n\n\[\/\/\]: # \(prherald-reply C\w+ [\d.]+\)$/)
    expect(made!.body).not.toContain('slack.com')
    // Its webhook comes back as a code comment like any other, but prherald's own: nothing more in the Slack thread.
    const before = s.h.slack.repliesTo(CHANNEL, thread).length
    await s.send(CODE[provider]('alice', made!.body, made!.id).delivery)
    expect(s.h.slack.repliesTo(CHANNEL, thread)).toHaveLength(before)

    await sendEvent(edited(reply, `${permalink(mirrored.ts, thread)} A Map keeps the insertion order.`))
    await waitFor('the edit', () => made!.body.startsWith('A Map keeps the insertion order.'))
    expect(made!.body).not.toContain('slack.com')
    expect(s.fake().comments).toHaveLength(1)

    await sendEvent(deleted(reply))
    await waitFor('the deletion', () => made!.deleted)
    expect(await s.h.service!.settle(10_000)).toBe(true)
    expect(s.fake().comments).toHaveLength(1)
  })

  it('a reply to the code thread whose answer was lost is found there by its marker, not made twice', async () => {
    const { code, thread, mirrored } = await mirroredCodeComment()
    s.fake().loseCommentAnswers = 1
    await sendEvent(replyEvent(s.h.slack, thread, ALICE, `${permalink(mirrored.ts, thread)} Done.`).event)
    await waitFor('the reply adopted', () => s.h.service!.entries().some((e) => e.msg === 'audit: talk-back action' && e.outcome === 'commented_adopted'))
    expect(s.fake().comments).toHaveLength(1)
    expect(s.fake().comments[0]).toMatchObject({ thread: code.thread, deleted: false })
  })

  it('under thread_replies: everyone, an unlinked person\'s linking reply is made in the code thread by prherald\'s own account, naming them', async () => {
    // prherald's own token at the host, and Slack's users.info naming Bob (a member of the workspace).
    s.fake().accounts.push({ login: 'prherald', accountId: '557058:prherald', name: 'prherald' })
    const own = s.fake().issue('prherald').accessToken
    s.h.slack.scopes.push('users:read')
    s.h.slack.users.set(BOB, { realName: 'Bob Jones' })
    await s.start({ mirror: 'all', thread_replies: 'everyone' }, { env: { [hostOf(provider).variables.token]: own } })
    await s.send(CODE[provider]('dave', 'Why not a `Map`?', 700).delivery)
    const thread = s.message().ts
    const mirrored = s.h.slack.repliesTo(CHANNEL, thread)[0]!
    const reply = replyEvent(s.h.slack, thread, BOB, `${permalink(mirrored.ts, thread)} Agreed.`)
    await sendEvent(reply.event)
    await waitFor('the reply in the code thread', () => s.fake().comments.length === 1)
    expect(s.fake().comments[0]).toMatchObject({ thread: CODE[provider]('dave', '', 700).thread, author: 'prherald' })
    expect(s.fake().comments[0]!.body).toMatch(/^\*\*Bob Jones\*\* \(Slack user `U0BOB`\): Agreed\.\n/)
    await sendEvent(edited(reply, `${permalink(mirrored.ts, thread)} Agreed, with a test.`))
    await waitFor('the edit', () => s.fake().comments[0]!.body.includes('Agreed, with a test.'))
    await sendEvent(deleted(reply))
    await waitFor('the deletion', () => s.fake().comments[0]!.deleted)
  })

  it('a code-thread reply whose answer was lost and could not be looked up is adopted from its thread at the restart; its edit reaches it', async () => {
    const { code, thread, mirrored } = await mirroredCodeComment()
    s.fake().loseCommentAnswers = 1
    s.fake().failCommentLists = 1_000
    const reply = replyEvent(s.h.slack, thread, ALICE, `${permalink(mirrored.ts, thread)} Made once.`)
    await sendEvent(reply.event)
    await waitFor('the reply and a failed look-up', () => s.fake().comments.length === 1 && s.fake().failCommentLists < 1_000)
    s.fake().failCommentLists = 0
    await s.restart()
    expect(await s.h.service!.settle(10_000)).toBe(true)
    expect(s.fake().comments).toHaveLength(1)
    expect(s.h.service!.entries().find((e) => e.msg === 'interrupted pull request comments looked up')).toMatchObject({ count: 1, found: 1 })
    await sendEvent(edited(reply, `${permalink(mirrored.ts, thread)} Made once, edited.`))
    await waitFor('the edit', () => s.fake().comments[0]!.body.startsWith('Made once, edited.'))
    expect(s.fake().comments[0]).toMatchObject({ thread: code.thread, deleted: false })
  })

  it('a link to a message that is not a mirrored comment (the pull request\'s own message) stays a conversation comment, link and all', async () => {
    await s.start({ mirror: 'all', thread_replies: 'linked' })
    await s.link(ALICE, 'alice')
    await s.send(CODE[provider]('dave', 'Why not a `Map`?', 700).delivery)
    const thread = s.message().ts
    const reply = replyEvent(s.h.slack, thread, ALICE, `See ${permalink(thread, thread)} above`)
    await sendEvent(reply.event)
    await waitFor('the comment', () => s.fake().comments.length === 1)
    expect(s.fake().comments[0]!.thread).toBeUndefined()
    expect(s.fake().comments[0]!.body).toContain(`https://acme.slack.com/archives/${CHANNEL}/p${thread.replace('.', '')}`)
  })

  it('offers no Reply button where replies do not go back (thread_replies off)', async () => {
    await s.start({ mirror: 'all', reviews: 'on' })
    await s.send(CODE[provider]('dave', 'Why not a `Map`?', 700).delivery)
    const replies = s.h.slack.repliesTo(CHANNEL, s.message().ts)
    expect(replies).toHaveLength(1)
    expect(JSON.stringify(replies[0]!.blocks)).not.toContain(CODE_REPLY_ACTION)
  })
})
