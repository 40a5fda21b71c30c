import { afterEach, describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { bitbucketFixture } from '../helpers/bitbucket-fixtures.ts'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'

/**
 * `notify.merged_without_approval` end to end on each host, from real-shaped deliveries: a pull request merged
 * with no approval but its author's (or with changes still requested) gets one line naming who merged it, in
 * its thread or in the named channel; an approved one gets none; off, nothing.
 */
const CHANNEL = 'C0000000001'
const ALERTS = 'C0000000009'
type Json = Record<string, any>

const t = useDirAndSlack()
let service: TestService | undefined
afterEach(async () => {
  await service?.stop()
  service = undefined
})

async function run(provider: Provider, owner: string, setting: string | undefined, batches: Array<{ event: string; payload: Json }>): Promise<void> {
  writeConfig(t.dir.path, {
    git_provider: provider, ...(setting ? { notify: { merged_without_approval: setting } } : {}), mappings: { [owner]: { '*': { channel: CHANNEL } } },
  })
  service = await startPrherald(t.dir.path, testEnv(t.dir.path, provider, { SLACK_API_URL: t.slack.url }))
  // One batch each, so the pull request is announced before it is merged.
  for (const d of batches) {
    expect((await deliver(service.url, provider, d)).status).toBe(200)
    expect(await service.settle(10_000)).toBe(true)
  }
}

const threadOf = () => {
  const [message] = t.slack.messagesIn(CHANNEL)
  return t.slack.repliesTo(CHANNEL, message!.ts).map((r) => r.text)
}

function githubMerge(by: string): { event: string; payload: Json } {
  const merged = pullRequest('closed', 9, { merged: true })
  merged.sender.login = by
  return { event: 'pull_request', payload: merged }
}
const github = (...between: Array<{ event: string; payload: Json }>) =>
  [{ event: 'pull_request', payload: pullRequest('opened', 9) }, ...between, githubMerge('erin')]

describe('merged without approval', () => {
  it('GitHub: a merge with no approval (an admin merge is the same merged delivery) gets one line in the thread naming who merged', async () => {
    await run('github', 'Codertocat', 'thread', github())
    expect(threadOf()).toEqual([':warning: PR #9 was merged by erin without an approval'])
  })

  it('GitHub: with changes still requested the line names who requested them; an approved merge gets none', async () => {
    await run('github', 'Codertocat', 'thread', github({ event: 'pull_request_review', payload: review('changes_requested', 9, 'dave') }))
    expect(threadOf()).toEqual([':warning: PR #9 was merged by erin with changes still requested by dave'])
  })

  it('GitHub: an approval by someone other than the author means no line', async () => {
    await run('github', 'Codertocat', 'thread', github({ event: 'pull_request_review', payload: review('approved', 9, 'dave') }))
    expect(threadOf()).toEqual([])
  })

  it('in a named channel: one line there, linking the pull request, and nothing in the thread', async () => {
    await run('github', 'Codertocat', ALERTS, github())
    expect(t.slack.messagesIn(ALERTS).map((m) => m.text)).toEqual([
      ':warning: <https://github.com/Codertocat/Hello-World/pull/9|Codertocat/Hello-World#9 Update the README with new information.> was merged by erin without an approval',
    ])
    expect(threadOf()).toEqual([])
  })

  it('off by default: nothing', async () => {
    await run('github', 'Codertocat', undefined, github())
    expect(threadOf()).toEqual([])
  })

  it('GitLab: "merge immediately" is a merge like any other', async () => {
    await run('gitlab', 'acme', 'thread', [
      { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 7 }) },
      { event: 'Merge Request Hook', payload: mergeRequestHook('merge', { iid: 7, state: 'merged', actor: 'carol' }) },
    ])
    expect(threadOf()).toEqual([':warning: MR !7 was merged by carol without an approval'])
  })

  it('Bitbucket: a merge with no approval', async () => {
    await run('bitbucket', 'acme', 'thread', [
      { event: 'pullrequest:created', payload: bitbucketFixture('created') },
      { event: 'pullrequest:fulfilled', payload: bitbucketFixture('fulfilled') },
    ])
    expect(threadOf()).toEqual([expect.stringMatching(/^:warning: PR #42 was merged by \S+ without an approval$/)])
  })
})
