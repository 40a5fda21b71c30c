import { expect } from 'vitest'
import type { FakeSlack, SlackMessageState } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import type { TestService } from '../helpers/start-prherald.ts'
import { conversationComment, pullRequest, review, type PullRequestFacts } from '../helpers/github-payloads.ts'

/** Real GitHub example payloads, signed and delivered, moved to another repository of the same owner when asked. */
type Json = Record<string, any>

export const OWNER = 'Codertocat'

function inRepository(payload: Json, repo: string): Json {
  payload.repository.name = repo
  payload.repository.full_name = `${OWNER}/${repo}`
  const pr = payload.pull_request ?? payload.issue
  if (pr?.html_url) pr.html_url = String(pr.html_url).replace('/Hello-World/', `/${repo}/`)
  return payload
}

async function send(service: TestService, event: string, payload: Json): Promise<void> {
  const res = await deliver(service.url, 'github', { event, payload })
  expect(res.status).toBe(200)
  expect(await service.settle(10_000)).toBe(true)
}

export const announce = (service: TestService, repo: string, number: number, facts: PullRequestFacts = {}) =>
  send(service, 'pull_request', inRepository(pullRequest('opened', number, facts), repo))
export const comment = (service: TestService, repo: string, number: number, author: string) =>
  send(service, 'issue_comment', inRepository(conversationComment(number, author), repo))
export const approve = (service: TestService, repo: string, number: number, reviewer: string) =>
  send(service, 'pull_request_review', inRepository(review('approved', number, reviewer), repo))

/** The digest's messages in a channel: parents (no thread) that are not a pull request's message, and the replies to them. */
export function digestIn(slack: FakeSlack, channel: string): { parents: SlackMessageState[]; replies: SlackMessageState[] } {
  // messagesIn is the channel itself (no thread replies, as in Slack); repliesTo each parent's thread.
  const parents = slack.messagesIn(channel).filter((m) => / waiting since before today/.test(m.text))
  const replies = parents.flatMap((p) => slack.repliesTo(channel, p.ts))
  return { parents, replies }
}
