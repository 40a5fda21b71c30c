import type { Provider } from '../../machines/pull-request-event.ts'
import { bitbucketFixture } from './bitbucket-fixtures.ts'
import type { FakeSlack } from './fake-slack.ts'
import { mergeRequestHook, noteHook } from './gitlab-fixtures.ts'
import { conversationComment, pullRequest } from './github-payloads.ts'
import { waitFor } from './start-prherald.ts'
import { ALICE, BOB, CHANNEL } from './talk-back-setup.ts'

/** Issue 33.2's scenarios, per host: the pull request each announces, and how `users:` keys Alice there. */
export const REPLY_HOSTS = {
  github: { delivery: { event: 'pull_request', payload: pullRequest('opened', 9) }, commented: { event: 'issue_comment', payload: conversationComment(9, 'alice') }, owner: 'Codertocat', repository: 'Codertocat/Hello-World', number: 9, aliceKey: 'alice', aliceMention: '@alice' },
  gitlab: { delivery: { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 7 }) }, commented: { event: 'Note Hook', payload: noteHook({ iid: 7, actor: 'alice' }) }, owner: 'acme', repository: 'acme/api', number: 7, aliceKey: 'alice', aliceMention: '@alice' },
  bitbucket: { delivery: { event: 'pullrequest:created', payload: bitbucketFixture('created') }, commented: { event: 'pullrequest:comment_created', payload: bitbucketFixture('comment_created') }, owner: 'acme', repository: 'acme/payments-api', number: 42, aliceKey: '557058:alice', aliceMention: '@{557058:alice}' },
} as const satisfies Record<string, { delivery: { event: string; payload: unknown } } & Record<string, unknown>>

export type ReplyHost = keyof typeof REPLY_HOSTS

export function replyConfig(kind: ReplyHost, threadReplies: 'linked' | 'everyone') {
  const h = REPLY_HOSTS[kind]
  return {
    git_provider: kind, users: { [h.aliceKey]: ALICE },
    slack: { talk_back: { thread_replies: threadReplies } },
    mappings: { [h.owner]: { '*': { channel: CHANNEL } } },
  }
}

let nextReply = 100
/** A person's new message in a thread, as Slack's Events API sends it; also made known to the fake (reactions land on it). */
export function replyEvent(slack: FakeSlack, threadTs: string, user: string, text: string, over: Record<string, unknown> = {}) {
  const ts = `1800000${nextReply++}.000200`
  slack.messages.set(ts, { channel: CHANNEL, ts, text, blocks: [], reactions: new Set(), updates: 0, threadTs } as never)
  return { ts, event: { type: 'message', channel: CHANNEL, channel_type: 'channel', user, text, ts, thread_ts: threadTs, user_profile: { display_name: user === BOB ? 'Bob' : 'Alice' }, ...over } }
}

export const eventBody = (eventId: string, event: unknown) =>
  JSON.stringify({ type: 'event_callback', team_id: 'T0ACME', api_app_id: 'A0PRHERALD', event_id: eventId, event })

export const edited = (reply: { ts: string; event: Record<string, unknown> }, text: string, previous = String(reply.event.text)) => ({
  type: 'message', subtype: 'message_changed', channel: CHANNEL, hidden: true, ts: `1800009${nextReply++}.000300`,
  message: { ...reply.event, text, edited: { user: reply.event.user, ts: '1' } },
  previous_message: { ...reply.event, text: previous },
})

export const deleted = (reply: { ts: string; event: Record<string, unknown> }) => ({
  type: 'message', subtype: 'message_deleted', channel: CHANNEL, hidden: true, deleted_ts: reply.ts, ts: `1800009${nextReply++}.000400`,
  previous_message: reply.event,
})

export const provider = (kind: ReplyHost) => kind as Provider

/**
 * The pull request's message is in the channel and prherald has stored its ts (it logs the post after that
 * commit): a person can only reply to what they see, but Slack shows the message a moment before its answer
 * brings prherald the ts, and a reply in that moment is asked again (test/talk-back/reply-while-posting.test.ts).
 */
export async function waitForThread(slack: FakeSlack, entries: () => Array<Record<string, unknown>>): Promise<string> {
  await waitFor('the message', () => slack.messagesIn(CHANNEL).length === 1)
  await waitFor('its ts stored', () => entries().some((e) => e.msg === 'slack message changed' && Array.isArray(e.changes) && e.changes.includes('posted')))
  return slack.messagesIn(CHANNEL)[0]!.ts
}
