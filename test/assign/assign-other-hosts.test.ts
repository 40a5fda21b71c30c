import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { MANIFEST_SCOPES, startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { startFakeGitlab, type FakeGitlab } from '../helpers/fake-gitlab.ts'
import { apiMergeRequest, mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { bitbucketPayload } from '../lifecycle/bitbucket-payloads.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * `assign:` on GitLab and Bitbucket Cloud, end to end from their documented hook payloads. Neither has teams
 * prherald reads, so the team is the Slack user group `teams:` names, mapped back through `users:`; the fakes
 * take the update each host's docs describe (GitLab: `reviewer_ids`, the whole list; Bitbucket: a PUT that
 * carries the title and replaces `reviewers`).
 */
const CHANNEL = 'C0000000001'
const GROUP = 'S0BACKEND1'
const SLACK = { bob: 'U0BOB00001', dave: 'U0DAVE0001', erin: 'U0ERIN0001' }
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined
let gitlab: FakeGitlab | undefined
let bitbucket: FakeBitbucket | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  slack.scopes.push(...MANIFEST_SCOPES)
  for (const id of Object.values(SLACK)) slack.users.set(id, { realName: id })
  // The author bob is in the group too: never asked.
  slack.groups.set(GROUP, [SLACK.bob, SLACK.dave, SLACK.erin])
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await gitlab?.close()
  await bitbucket?.close()
  gitlab = bitbucket = undefined
  await slack.close()
  dir.remove()
})

const threadOf = () => {
  const [message] = slack.messagesIn(CHANNEL)
  return message ? slack.repliesTo(CHANNEL, message.ts).map((r) => r.text) : []
}

describe('assign: from a Slack user group', () => {
  it('GitLab: sends reviewer_ids with the merge request\'s current reviewers and the one chosen', async () => {
    gitlab = await startFakeGitlab()
    gitlab.users.push({ id: 51, username: 'bob', public_email: '' }, { id: 8, username: 'dave', public_email: '' }, { id: 9, username: 'erin', public_email: '' }, { id: 6, username: 'alice', public_email: '' })
    gitlab.mergeRequests.set('acme/api!7', apiMergeRequest({ iid: 7, reviewers: [{ username: 'alice' }] }))
    writeConfig(dir.path, {
      git_provider: 'gitlab', server: { shutdown_timeout_seconds: 1 }, users: { bob: SLACK.bob, dave: SLACK.dave, erin: SLACK.erin }, teams: { backend: GROUP },
      mappings: { acme: { api: { channel: CHANNEL, assign: { team: 'backend' } } } },
    })
    service = await startPrherald(dir.path, testEnv(dir.path, 'gitlab', { SLACK_API_URL: slack.url, GITLAB_API_URL: gitlab.url, GITLAB_TOKEN: 'glpat-test' }))
    expect((await deliver(service.url, 'gitlab', { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 7, reviewers: [{ username: 'alice' }] }) })).status).toBe(200)
    await waitFor('the merge request update', () => gitlab!.mergeRequestUpdates.has('acme/api!7'))
    // alice (id 6) was asked already and stays; dave (id 8) is the first of the group after the author.
    expect(gitlab.mergeRequestUpdates.get('acme/api!7')).toEqual([{ reviewer_ids: [6, 8] }])
    await waitFor('the line', () => threadOf().length > 0)
    expect(threadOf()).toEqual([`Assigned <@${SLACK.dave}> (round robin)`])
  })

  it('GitLab: reads the owner\'s subgroup of the team\'s name where there is one', async () => {
    gitlab = await startFakeGitlab()
    gitlab.users.push({ id: 51, username: 'bob', public_email: '' }, { id: 8, username: 'dave', public_email: '' }, { id: 9, username: 'erin', public_email: '' })
    gitlab.groupMembers.set('acme/backend', ['bob', 'erin'])
    gitlab.mergeRequests.set('acme/api!7', apiMergeRequest({ iid: 7 }))
    writeConfig(dir.path, {
      git_provider: 'gitlab', server: { shutdown_timeout_seconds: 1 }, users: { bob: SLACK.bob, dave: SLACK.dave, erin: SLACK.erin }, teams: { backend: GROUP },
      mappings: { acme: { api: { channel: CHANNEL, assign: { team: 'backend' } } } },
    })
    service = await startPrherald(dir.path, testEnv(dir.path, 'gitlab', { SLACK_API_URL: slack.url, GITLAB_API_URL: gitlab.url, GITLAB_TOKEN: 'glpat-test' }))
    expect((await deliver(service.url, 'gitlab', { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 7 }) })).status).toBe(200)
    await waitFor('the merge request update', () => gitlab!.mergeRequestUpdates.has('acme/api!7'))
    // The subgroup has bob (the author) and erin; the Slack group's dave is not asked.
    expect(gitlab.mergeRequestUpdates.get('acme/api!7')).toEqual([{ reviewer_ids: [9] }])
  })

  it('Bitbucket: PUTs the title and the reviewers, the current ones kept, by account id', async () => {
    bitbucket = await startFakeBitbucket()
    const ids = { bob: '557058:bob', dave: '557058:dave', erin: '557058:erin' }
    const opened = bitbucketPayload('pullrequest:created', { id: 5, actor: 'bob', reviewers: ['carol'] })
    bitbucket.pullRequests.set('acme/api#5', opened.pullrequest as Record<string, unknown>)
    writeConfig(dir.path, {
      git_provider: 'bitbucket', server: { shutdown_timeout_seconds: 1 },
      users: { [ids.bob]: SLACK.bob, [ids.dave]: SLACK.dave, [ids.erin]: SLACK.erin }, teams: { backend: GROUP },
      mappings: { acme: { api: { channel: CHANNEL, assign: { team: 'backend', count: 2 } } } },
    })
    service = await startPrherald(dir.path, testEnv(dir.path, 'bitbucket', { SLACK_API_URL: slack.url, BITBUCKET_API_URL: bitbucket.url, BITBUCKET_TOKEN: 'bb_access_token' }))
    expect((await deliver(service.url, 'bitbucket', { event: 'pullrequest:created', payload: opened })).status).toBe(200)
    await waitFor('the pull request update', () => bitbucket!.pullRequestUpdates.has('acme/api#5'))
    expect(bitbucket.pullRequestUpdates.get('acme/api#5')).toEqual([{
      title: 'Add rate limiting', reviewers: [{ account_id: '557058:carol' }, { account_id: ids.dave }, { account_id: ids.erin }],
    }])
    await waitFor('the line', () => threadOf().length > 0)
    expect(threadOf()).toEqual([`Assigned <@${SLACK.dave}> and <@${SLACK.erin}> (round robin)`])
  })
})
