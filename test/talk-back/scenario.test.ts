import { afterEach, describe, expect, it } from 'vitest'
import type { FakeHostKind } from '../helpers/fake-oauth.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'
import { mergeRequestHook, noteHook } from '../helpers/gitlab-fixtures.ts'
import { consent, followCallback, linkIn, openLink } from '../helpers/oauth-browser.ts'
import { reviewActionPayload, viewSubmissionPayload } from '../helpers/review-modal.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { sendInteraction } from '../helpers/slack-interaction.ts'
import { commandForm, sendSignedSlack } from '../helpers/slack-requests.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { startTalkBackDeployment, type ScenarioBackend, type TalkBackDeployment } from '../helpers/talk-back-deployment.ts'
import { aliceAndAuthor, ALICE, CHANNEL } from '../helpers/talk-back-setup.ts'
import { deleted, edited, eventBody, replyEvent, waitForThread } from '../helpers/thread-reply-events.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'

/**
 * Issue 33's scenario table, end to end on real prherald-server processes: for each host, on SQLite and on
 * PostgreSQL with two replicas, Alice links her account through the real routes, replies in the thread of a
 * pull request's message (one comment as her at the host; Slack's retry, to the other replica, changes
 * nothing), the comment's webhook moves the count and posts nothing back, her edit and deletion follow, she
 * approves from the modal (the review at the host for the head commit), the review's webhook moves the
 * message, and unlinking revokes her token where the host can. Every request is signed as Slack or the host
 * signs it; Slack and the host are fakes on 127.0.0.1.
 */
type Delivery = { event: string; payload: Record<string, any> }

interface HostRow {
  /** How `users:` keys Alice on this host, and who opened the pull request. */
  aliceKey: string
  author: string
  /** The mapping's owner, and the fake's key of the pull request (`owner/repo#n`). */
  owner: string
  pr: string
  /** The head commit the message shows, and the review must name (Bitbucket's review names none). */
  head: string | undefined
  opened: () => Delivery
  /** The comment's own webhook: its id at the host, its body, its time. */
  commented: (id: number, body: string, at: Date) => Delivery
  approved: (at: Date) => Delivery
  /** Whether the host's API can end a token (GitHub, GitLab), or prherald can only forget it (Bitbucket). */
  revokes: boolean
}

const GITHUB_HEAD = String(pullRequest('opened', 9).pull_request.head.sha)
const GITLAB_HEAD = 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7'
const gitlabTime = (at: Date) => at.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')

const HOSTS: Record<FakeHostKind, HostRow> = {
  github: {
    aliceKey: 'alice', author: 'Codertocat', owner: 'Codertocat', pr: 'Codertocat/Hello-World#9', head: GITHUB_HEAD, revokes: true,
    opened: () => ({ event: 'pull_request', payload: pullRequest('opened', 9) }),
    commented: (id, body, at) => {
      const payload = conversationComment(9, 'alice')
      Object.assign(payload.comment, { id, body, created_at: at.toISOString(), updated_at: at.toISOString() })
      return { event: 'issue_comment', payload }
    },
    approved: (at) => {
      const payload = review('approved', 9, 'alice')
      Object.assign(payload.review, { commit_id: GITHUB_HEAD, submitted_at: at.toISOString() })
      return { event: 'pull_request_review', payload }
    },
  },
  gitlab: {
    aliceKey: 'alice', author: 'bob', owner: 'acme', pr: 'acme/api#7', head: GITLAB_HEAD, revokes: true,
    opened: () => ({ event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 7 }) }),
    commented: (id, body, at) => {
      const payload = noteHook({ iid: 7, actor: 'alice' })
      Object.assign(payload.object_attributes, { id, note: body, created_at: gitlabTime(at), updated_at: gitlabTime(at) })
      return { event: 'Note Hook', payload }
    },
    approved: (at) => ({
      event: 'Merge Request Hook',
      payload: mergeRequestHook('approval', { iid: 7, actor: 'alice', reviewers: [{ username: 'alice', state: 'approved' }], updatedAt: at.toISOString() }),
    }),
  },
  bitbucket: {
    aliceKey: '557058:alice', author: 'bob', owner: 'acme', pr: 'acme/api#7', head: undefined, revokes: false,
    opened: () => ({ event: 'pullrequest:created', payload: bitbucketPayload('pullrequest:created', { id: 7 }) }),
    commented: (id, body, at) => {
      const payload = bitbucketPayload('pullrequest:comment_created', { id: 7, actor: 'alice' })
      Object.assign(payload.comment as object, { id, content: { raw: body }, created_on: at.toISOString(), updated_on: at.toISOString() })
      return { event: 'pullrequest:comment_created', payload }
    },
    approved: (at) => {
      const payload = bitbucketPayload('pullrequest:approved', { id: 7, actor: 'alice', updatedOn: at.toISOString() })
      Object.assign(payload.approval as object, { date: at.toISOString() })
      return { event: 'pullrequest:approved', payload }
    },
  },
}

const KINDS = Object.keys(HOSTS) as FakeHostKind[]
const BACKENDS: ScenarioBackend[] = ['sqlite', 'postgres']

describe.each(BACKENDS)('the talk-back scenario on %s', (backend) => {
  let d: TalkBackDeployment | undefined
  afterEach(async () => {
    await d?.close()
    d = undefined
  })

  it.each(KINDS)('%s: link, reply, its webhook, edit, delete, approve, its webhook, unlink', async (kind) => {
    const row = HOSTS[kind]
    d = await startTalkBackDeployment({
      kind, backend,
      accounts: aliceAndAuthor(row.author),
      config: {
        git_provider: kind, users: { [row.aliceKey]: ALICE },
        slack: { talk_back: { thread_replies: 'linked', reviews: 'on' } },
        mappings: { [row.owner]: { '*': { channel: CHANNEL } } },
      },
    })
    d.fake.authors.set(row.pr, row.author)
    if (row.head) d.fake.heads.set(row.pr, row.head)
    const s = steps(d, kind, row)

    const tokens = await s.link()
    const thread = await s.openPullRequest()
    const reply = await s.replyInThread(thread)
    await s.commentWebhook(thread, reply)
    await s.editReply(reply)
    await s.deleteReply(reply)
    await s.approveFromModal()
    await s.approvalWebhook()
    await s.unlink(tokens)

    // One audit line per action, whichever replica acted (so in no particular order); and no token in any log.
    const audits = d.entries().filter((e) => e.msg === 'audit: talk-back action').map((e) => `${e.action}:${e.outcome}`)
    expect(audits.sort()).toEqual(['approve:done', 'link:linked', 'reply_delete:deleted', 'reply_edit:edited', 'reply_post:commented', `unlink:${row.revokes ? 'revoked' : 'unsupported'}`])
    for (const token of tokens) expect(d.logs()).not.toContain(token)
  })
})

/** The scenario's steps against one deployment; each asserts what its step can get wrong. */
function steps(d: TalkBackDeployment, kind: FakeHostKind, row: HostRow) {
  const command = async (text: string) => {
    const res = await sendSignedSlack(d.first.url, '/webhook/slack/commands', commandForm(ALICE, text))
    expect(res.status).toBe(200)
    return (await res.json()) as { text: string; response_type?: string }
  }
  let events = 0
  /** A signed Slack event; `to` the replica that gets it, `eventId` Slack's (the same on a retry). */
  const event = async (body: unknown, to = d.first, eventId = `Ev${kind}${++events}`, headers: Record<string, string> = {}) => {
    expect((await sendSignedSlack(to.url, '/webhook/slack/events', eventBody(eventId, body), { headers })).status).toBe(200)
    await d.settle()
    return eventId
  }
  const webhook = async (delivery: Delivery, to = d.first) => {
    expect((await deliver(to.url, kind, delivery)).status).toBe(200)
    await d.settle()
  }
  const message = () => {
    const messages = d.slack.messagesIn(CHANNEL)
    expect(messages).toHaveLength(1)
    return messages[0]!
  }
  const aliceComments = () => d.fake.comments.filter((c) => c.pr === row.pr && c.author === 'alice')

  return {
    /** `/prherald link <host>` → /start → the host's consent → /callback: linked, and stored. Resolves with the tokens the host issued. */
    async link() {
      const answer = await command(`link ${kind}`)
      expect(answer.response_type).toBe('ephemeral')
      const url = linkIn(answer.text)
      expect(url, answer.text).toBeDefined()
      expect(url!.startsWith(`${d.other.url}/oauth/${kind}/start?`)).toBe(true)
      const opened = await openLink(url!)
      expect(opened.res.status).toBe(302)
      expect(new URL(opened.location).origin).toBe(d.fake.url)
      const done = await followCallback(await consent(opened.location), opened.cookie)
      expect(done.status).toBe(200)
      expect(done.html).toContain('account alice is linked to prherald')
      expect(await d.linkedAccounts()).toEqual([{ slack_user: ALICE, host: kind, login: 'alice' }])
      const tokens = [...d.fake.tokens].filter(([, t]) => t.login === 'alice' && t.live).map(([token]) => token)
      expect(tokens.length).toBeGreaterThan(0)
      return tokens
    },
    /** The host's signed `opened`: one message, with the review actions and the line saying where replies go. */
    async openPullRequest() {
      await webhook(row.opened())
      await waitForThread(d.slack, d.entries)
      const blocks = JSON.stringify(message().blocks)
      expect(blocks).toContain('prherald_review_menu')
      expect(blocks).toContain('Replies in this thread go to the pull request')
      return message().ts
    },
    /** Alice's reply in the thread: one comment as her, a reaction on the reply; Slack's retry to the other replica changes nothing. */
    async replyInThread(thread: string) {
      const reply = replyEvent(d.slack, thread, ALICE, '*Looks good*, see <https://example.com|the doc>')
      const eventId = await event(reply.event)
      await waitFor('the comment', () => aliceComments().length === 1)
      expect(aliceComments()[0]).toMatchObject({ deleted: false, body: expect.stringMatching(/^\*\*Looks good\*\*, see \[the doc\]\(https:\/\/example\.com\)/) })
      await waitFor('the reaction', () => d.slack.messages.get(reply.ts)!.reactions.has('speech_balloon'))
      await event(reply.event, d.other, eventId, { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' })
      expect(d.fake.comments).toHaveLength(1)
      expect(d.entries().filter((e) => e.msg === 'ignored slack event' && e.reason === 'already_taken')).toHaveLength(1)
      return reply
    },
    /** The comment's own webhook (its id and time): the message counts it, and nothing is posted back in the thread. */
    async commentWebhook(thread: string, reply: { ts: string }) {
      const posts = d.slack.count('chat.postMessage')
      expect(message().text).not.toMatch(/ comments?$/)
      const [comment] = aliceComments()
      await webhook(row.commented(comment!.id, comment!.body, new Date()), d.other)
      await waitFor('the count', () => / 1 comment$/.test(message().text))
      expect(d.slack.count('chat.postMessage')).toBe(posts)
      expect(d.slack.count('chat.postEphemeral')).toBe(0)
      expect(d.slack.repliesTo(CHANNEL, thread).map((m) => m.ts)).toEqual([reply.ts])
    },
    /** message_changed: the same comment, edited. */
    async editReply(reply: ReturnType<typeof replyEvent>) {
      await event(edited(reply, 'Looks *great*'))
      await waitFor('the edit', () => /^Looks \*\*great\*\*/.test(aliceComments()[0]!.body))
      expect(aliceComments()).toHaveLength(1)
    },
    /** message_deleted: the comment deleted at the host. */
    async deleteReply(reply: ReturnType<typeof replyEvent>) {
      await event(deleted(reply))
      await waitFor('the deletion', () => aliceComments()[0]!.deleted)
      expect(d.fake.comments).toHaveLength(1)
    },
    /** The review action opens the modal (views.open); its submission is answered at once; the review is made as Alice for the head. */
    async approveFromModal() {
      const opens = d.slack.count('views.open')
      const click = reviewActionPayload({ user: ALICE, channel: CHANNEL, messageTs: message().ts, action: 'approve' })
      expect((await sendInteraction(d.first.url, click)).status).toBe(200)
      await waitFor('views.open', () => d.slack.count('views.open') === opens + 1)
      const viewId = [...d.slack.modals.keys()].at(-1)!
      // A slow start opens the modal as "Loading…" and then puts the form in it.
      await waitFor('the form', () => d.slack.modals.get(viewId)!.view.callback_id === 'prherald_review_form')
      const form = d.slack.modals.get(viewId)!.view
      const updates = d.slack.count('chat.update')
      const submitted = await sendInteraction(d.other.url, viewSubmissionPayload({ user: ALICE, viewId, view: form, text: 'Ship it' }))
      expect(submitted.status).toBe(200)
      expect(((await submitted.json()) as { response_action: string }).response_action).toBe('update')
      await waitFor('the outcome', () => JSON.stringify(d.slack.modals.get(viewId)!.view.blocks).includes('Approved on'))
      expect(d.fake.reviews).toEqual([expect.objectContaining({ pr: row.pr, kind: 'approve', author: 'alice', ...(row.head ? { sha: row.head } : {}) })])
      // GitLab and Bitbucket take the text as a second call: a comment by Alice.
      if (kind !== 'github') expect(aliceComments().filter((c) => !c.deleted).map((c) => c.body)).toEqual(['Ship it'])
      // The message moves only with the host's webhook.
      expect(d.slack.count('chat.update')).toBe(updates)
    },
    /** The host's review webhook: the message shows Alice's approval. */
    async approvalWebhook() {
      expect(JSON.stringify(message().blocks)).not.toMatch(/Approved by [^"]*alice/i)
      await webhook(row.approved(new Date(Date.now() + 60_000)), d.other)
      await waitFor('the approval on the message', () => /Approved by [^"]*alice/i.test(JSON.stringify(message().blocks)))
    },
    /** `/prherald unlink <host>`: revoked at the host where its API allows, and the row gone. */
    async unlink(tokens: string[]) {
      const answer = await command(`unlink ${kind}`)
      if (row.revokes) {
        expect(answer.text).toMatch(/^Unlinked: .* ended prherald's access/)
        expect(d.fake.revoked).toEqual(tokens)
      } else {
        expect(answer.text).toMatch(/^Unlinked: prherald forgot its token\. Bitbucket has no way for prherald to end its access/)
        expect(d.fake.revoked).toEqual([])
      }
      expect(await d.linkedAccounts()).toEqual([])
    },
  }
}
