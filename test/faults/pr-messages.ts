import { expect } from 'vitest'
import type { FakeSlack, SlackMessageState } from '../helpers/fake-slack.ts'
import { conversationComment, pullRequest, review } from '../helpers/github-payloads.ts'

/**
 * Helpers shared by the fault tests: the deliveries of one pull request, and what its Slack message must
 * look like once they are all applied. Start-up validation may call auth.test and conversations.info, so
 * only the calls that write a message are ever counted.
 */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['chat.postMessage', 'chat.update', 'reactions.add', 'reactions.remove'])

export const writeCalls = (slack: FakeSlack) => slack.calls.filter((c) => WRITE_METHODS.has(c.method))

/** Every Slack message of pull request `number` of `owner`/Hello-World (the text is `PR #n: title (repo) — status`). */
export function messagesOf(slack: FakeSlack, owner: string, number: number): SlackMessageState[] {
  return [...slack.messages.values()].filter((m) => m.text.startsWith(`PR #${number}: `) && m.text.includes(`(${owner}/Hello-World)`))
}

/** The status line the message shows, e.g. `Approved by carol · 1 comment`. */
export const statusOf = (message: SlackMessageState) => message.text.slice(message.text.lastIndexOf(' — ') + 3)

/** The three deliveries every pull request of a burst gets: opened, approved by carol, commented by dave. */
export function prDeliveries(owner: string, number: number): Array<{ event: string; payload: unknown; deliveryId: string }> {
  const withOwner = <T extends Record<string, any>>(payload: T): T => {
    payload.repository.owner.login = owner
    return payload
  }
  return [
    { event: 'pull_request', payload: withOwner(pullRequest('opened', number)), deliveryId: `${owner}-${number}-opened` },
    { event: 'pull_request_review', payload: withOwner(review('approved', number, 'carol')), deliveryId: `${owner}-${number}-approved` },
    { event: 'issue_comment', payload: withOwner(conversationComment(number, 'dave')), deliveryId: `${owner}-${number}-commented` },
  ]
}

/** The message a pull request shows after all three deliveries: one message, right status, right reactions. */
export const FULL_STATUS = 'Approved by carol · 1 comment'
export const FULL_REACTIONS = ['speech_balloon', 'white_check_mark']

export function expectOneCorrectMessage(slack: FakeSlack, owner: string, number: number, channel: string): void {
  const messages = messagesOf(slack, owner, number)
  expect(messages, `messages of ${owner} #${number}`).toHaveLength(1)
  const [message] = messages
  expect(message!.channel).toBe(channel)
  expect(statusOf(message!), `status of ${owner} #${number}`).toBe(FULL_STATUS)
  expect([...message!.reactions].sort(), `reactions of ${owner} #${number}`).toEqual(FULL_REACTIONS)
  expect(JSON.stringify(message!.blocks)).toContain(`PR #${number}: `)
}

/** Is this pull request's message complete (all three deliveries visible)? For waits, not assertions. */
export function isComplete(slack: FakeSlack, owner: string, number: number): boolean {
  const messages = messagesOf(slack, owner, number)
  return messages.length === 1 && statusOf(messages[0]!) === FULL_STATUS && messages[0]!.reactions.size === FULL_REACTIONS.length
}
