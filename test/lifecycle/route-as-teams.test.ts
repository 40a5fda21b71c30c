import { afterEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import type { Provider } from '../../machines/pull-request-event.ts'
import { startFakeBitbucket, type FakeBitbucket } from '../helpers/fake-bitbucket.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { startFakeGitlab, type FakeGitlab } from '../helpers/fake-gitlab.ts'
import { mergeRequestHook, type GitlabFacts } from '../helpers/gitlab-fixtures.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { testEnv, writeConfig, type TestConfig } from '../helpers/start-prherald.ts'
import { bitbucketPayload, type BitbucketFacts } from './bitbucket-payloads.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

const GENERAL = 'C0000GENERAL'
const BACKEND = 'C0000BACKEND'
const WEB = 'C000000000WEB'
const FOLLOW = 'C00000FOLLOW'

const h = usePrherald()
let github: FakeGithub | undefined
let gitlab: FakeGitlab | undefined
let bitbucket: FakeBitbucket | undefined

afterEach(async () => {
  await github?.close()
  await gitlab?.close()
  await bitbucket?.close()
  github = gitlab = bitbucket = undefined
})

async function start(provider: Provider, config: { mappings: TestConfig['mappings']; [key: string]: unknown }, env: Env): Promise<void> {
  writeConfig(h.dir.path, { ...config, git_provider: provider })
  await h.start(testEnv(h.dir.path, provider, { SLACK_API_URL: h.slack.url, ...env }))
}

/** The message's context line (repository, author, date, and the target once retargeted). */
const contextLine = (channel: string) => JSON.stringify(h.slack.messagesIn(channel)[0]!.blocks[1])
const settle = async () => expect(await h.service!.settle(10_000)).toBe(true)
const posts = (channel: string) => h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === channel).length
const send = async (provider: Provider, event: string, payload: unknown, deliveryId?: string) => {
  expect((await deliver(h.service!.url, provider, { event, payload, ...(deliveryId ? { deliveryId } : {}) })).status).toBe(200)
  await settle()
}

/** A GitHub pull_request payload whose base (target) and head (source) branches are set. */
function githubPr(action: string, number: number, branches: { into?: string; from?: string } = {}, facts: Parameters<typeof pullRequest>[2] = {}) {
  const payload = pullRequest(action, number, facts)
  if (branches.into) payload.pull_request.base.ref = branches.into
  if (branches.from) payload.pull_request.head.ref = branches.from
  return payload
}

describe('GitHub', () => {
  const TOKEN = 'ghp_routing'
  const env = () => ({ GITHUB_API_URL: github!.url, GITHUB_TOKEN: TOKEN })
  const owners = {
    '@codertocat/backend': { channel: BACKEND, mentions: ['<!subteam^S0BACK>'] },
    '@codertocat/web': { channel: WEB },
  }
  const CODEOWNERS = '* @someone-else\n/services/api/ @Codertocat/backend\n*.tsx @Codertocat/web\n'

  it('code owners: one message per owner\'s channel, CODEOWNERS read at the target branch once, none for later events', async () => {
    github = await startFakeGithub()
    github.token = TOKEN
    github.files.set('Codertocat/Hello-World@master:.github/CODEOWNERS', CODEOWNERS)
    github.pullFiles.set('Codertocat/Hello-World#5', ['services/api/server.go', 'web/App.tsx', 'README.md'])
    github.pullFiles.set('Codertocat/Hello-World#6', ['services/api/db.go'])
    await start('github', { mappings: { Codertocat: { 'Hello-World': { channel: GENERAL, owners } } } }, env())

    await send('github', 'pull_request', githubPr('opened', 5))
    expect(github.requests.map((r) => r.path)).toEqual(['/repos/Codertocat/Hello-World/pulls/5/files', '/repos/Codertocat/Hello-World/contents/.github%2FCODEOWNERS'])
    expect(github.requests[1]!.query.get('ref')).toBe('master')
    expect([posts(BACKEND), posts(WEB), posts(GENERAL)]).toEqual([1, 1, 0])
    expect(JSON.stringify(h.slack.messagesIn(BACKEND)[0]!.blocks)).toContain('<!subteam^S0BACK>')

    // A later event reads nothing and keeps both messages in step.
    await send('github', 'pull_request_review', review('approved', 5, 'carol'))
    expect(github.requests).toHaveLength(2)
    expect(h.slack.messagesIn(BACKEND)[0]!.reactions.has('white_check_mark')).toBe(true)
    expect(h.slack.messagesIn(WEB)[0]!.reactions.has('white_check_mark')).toBe(true)

    // A second pull request within the minute: its files, and the CODEOWNERS already read.
    await send('github', 'pull_request', githubPr('opened', 6))
    expect(github.requests.map((r) => r.path).slice(2)).toEqual(['/repos/Codertocat/Hello-World/pulls/6/files'])
    expect([posts(BACKEND), posts(WEB), posts(GENERAL)]).toEqual([2, 1, 0])
  })

  it('a CODEOWNERS with syntax GitHub does not read falls back to the entry\'s channel and says why', async () => {
    github = await startFakeGithub()
    github.token = TOKEN
    github.files.set('Codertocat/Hello-World@master:CODEOWNERS', '!*.md @Codertocat/web\n')
    github.pullFiles.set('Codertocat/Hello-World#7', ['services/api/server.go'])
    await start('github', { mappings: { Codertocat: { 'Hello-World': { channel: GENERAL, owners } } } }, env())
    await send('github', 'pull_request', githubPr('opened', 7))
    expect([posts(GENERAL), posts(BACKEND)]).toEqual([1, 0])
    const [line] = h.service!.entries().filter((e) => e.msg === 'code owner routing has no usable CODEOWNERS')
    expect(String(line!.reason)).toContain('CODEOWNERS line 1')
  })

  it('a team asked to review after the announcement gets its own message, kept in step; a replay posts nothing twice', async () => {
    github = await startFakeGithub()
    github.token = TOKEN
    await start('github', { mappings: { Codertocat: { 'Hello-World': { channel: GENERAL, owners } } } }, env())
    github.pullFiles.set('Codertocat/Hello-World#8', ['README.md'])
    await send('github', 'pull_request', githubPr('opened', 8), 'd-open')
    expect([posts(GENERAL), posts(BACKEND)]).toEqual([1, 0])

    const requested = githubPr('review_requested', 8)
    const team = { id: 42, node_id: 'T_1', slug: 'backend', name: 'Backend', privacy: 'closed', permission: 'push', url: '', html_url: 'https://github.com/orgs/Codertocat/teams/backend' }
    requested.requested_team = team
    requested.pull_request.requested_teams = [team]
    await send('github', 'pull_request', requested, 'd-team')
    expect([posts(GENERAL), posts(BACKEND)]).toEqual([1, 1])

    await send('github', 'pull_request_review', review('approved', 8, 'carol'), 'd-approve')
    for (const channel of [GENERAL, BACKEND]) expect(h.slack.messagesIn(channel)[0]!.reactions.has('white_check_mark')).toBe(true)

    // The host redelivers the whole history: each delivery id is known, and nothing is posted again.
    await send('github', 'pull_request', githubPr('opened', 8), 'd-open')
    await send('github', 'pull_request', requested, 'd-team')
    await send('github', 'pull_request_review', review('approved', 8, 'carol'), 'd-approve')
    expect([posts(GENERAL), posts(BACKEND)]).toEqual([1, 1])
  })

  it('only.into: held back while it targets another branch, announced when retargeted, and the message stays after a retarget away', async () => {
    github = await startFakeGithub()
    await start('github', { mappings: { Codertocat: { 'Hello-World': { channel: GENERAL, only: { into: ['main', 'release/*'] }, ignore: { from: ['dependabot/*'] } } } } }, {})
    await send('github', 'pull_request', githubPr('opened', 9, { into: 'feature/x' }))
    expect(posts(GENERAL)).toBe(0)

    const retarget = (into: string) => {
      const payload = githubPr('edited', 9, { into })
      payload.changes = { base: { ref: { from: 'feature/x' }, sha: { from: '0000000000000000000000000000000000000000' } } }
      return payload
    }
    await send('github', 'pull_request', retarget('release/2.4'))
    expect(posts(GENERAL)).toBe(1)
    const updates = h.slack.count('chat.update')
    await send('github', 'pull_request', retarget('feature/y'))
    expect(posts(GENERAL)).toBe(1)
    expect(h.slack.count('chat.delete')).toBe(0)
    // The message stays, and says where the pull request goes now.
    expect(h.slack.count('chat.update')).toBe(updates + 1)
    expect(contextLine(GENERAL)).toContain('· into `feature/y`')

    // ignore.from keeps a bot's branch out even into main.
    await send('github', 'pull_request', githubPr('opened', 10, { into: 'main', from: 'dependabot/npm/lodash' }))
    expect(posts(GENERAL)).toBe(1)
  })

  it('follow: an author\'s pull requests in an unmapped repository, and a team\'s members read through the API', async () => {
    github = await startFakeGithub()
    github.token = TOKEN
    github.teamMembers.set('Codertocat/web', ['dana'])
    await start('github', {
      mappings: { Other: { '*': { channel: GENERAL } } },
      follow: [{ channel: FOLLOW, authors: ['alice'] }, { channel: WEB, team: 'web', repositories: ['Codertocat/*'] }],
    }, env())
    await send('github', 'pull_request', githubPr('opened', 11, {}, { author: 'alice' }))
    expect(posts(FOLLOW)).toBe(1)
    expect(posts(WEB)).toBe(0)
    await send('github', 'pull_request', githubPr('opened', 12, {}, { author: 'dana' }))
    expect(posts(WEB)).toBe(1)
    expect(github.requests.filter((r) => r.path === '/orgs/Codertocat/teams/web/members')).toHaveLength(1)
    // Somebody nobody follows, in a repository nobody maps: no message.
    await send('github', 'pull_request', githubPr('opened', 13, {}, { author: 'zed' }))
    expect(h.slack.count('chat.postMessage')).toBe(2)
  })
})

describe('GitLab', () => {
  const TOKEN = 'glpat-routing'
  const mr = async (action: string, facts: Omit<GitlabFacts, 'project'>, target = 'master') => {
    const payload = mergeRequestHook(action, { ...facts, project: 'acme/api' })
    payload.object_attributes.target_branch = target
    await send('gitlab', 'Merge Request Hook', payload)
  }

  it('code owners with sections: each section\'s owners get the merge request', async () => {
    gitlab = await startFakeGitlab()
    gitlab.token = TOKEN
    gitlab.files.set('acme/api@master:CODEOWNERS', '* @acme/everyone\n\n[Backend] @acme/backend\napp/models/\n\n^[Frontend]\n*.vue @acme/web\n')
    gitlab.diffs.set('acme/api!3', [{ old_path: 'app/models/user.rb', new_path: 'app/models/user.rb' }, { old_path: 'app/Page.vue', new_path: 'app/Page.vue' }])
    await start('gitlab', { mappings: { acme: { api: { channel: GENERAL, owners: { '@acme/backend': { channel: BACKEND }, '@acme/web': { channel: WEB } } } } } },
      { GITLAB_API_URL: gitlab.url, GITLAB_TOKEN: TOKEN })
    await mr('open', { iid: 3 })
    expect([posts(GENERAL), posts(BACKEND), posts(WEB)]).toEqual([0, 1, 1])
    expect(gitlab.requests.map((r) => r.path)).toEqual([
      '/api/v4/projects/acme%2Fapi/merge_requests/3/diffs', '/api/v4/projects/acme%2Fapi/repository/files/CODEOWNERS',
    ])
  })

  it('a retargeted merge request (changes.target_branch) is announced once it matches only.into', async () => {
    gitlab = await startFakeGitlab()
    await start('gitlab', { mappings: { acme: { api: { channel: GENERAL, only: { into: ['main'] } } } } }, {})
    await mr('open', { iid: 4 }, 'develop')
    expect(posts(GENERAL)).toBe(0)
    await mr('update', { iid: 4, changes: { target_branch: { previous: 'develop', current: 'main' } } }, 'main')
    expect(posts(GENERAL)).toBe(1)
  })

  it('an announced merge request retargeted (changes.target_branch) keeps its message, which names the new target', async () => {
    gitlab = await startFakeGitlab()
    await start('gitlab', { mappings: { acme: { api: { channel: GENERAL } } } }, {})
    await mr('open', { iid: 5 }, 'main')
    expect(contextLine(GENERAL)).not.toContain('into')
    const updates = h.slack.count('chat.update')
    await mr('update', { iid: 5, changes: { target_branch: { previous: 'main', current: 'release/3.1' } } }, 'release/3.1')
    expect(posts(GENERAL)).toBe(1)
    expect(h.slack.count('chat.update')).toBe(updates + 1)
    expect(contextLine(GENERAL)).toContain('· into `release/3.1`')
  })
})

describe('Bitbucket Cloud', () => {
  const TOKEN = 'bb-routing'
  const pr = async (key: string, facts: BitbucketFacts) => send('bitbucket', `pullrequest:${key}`, bitbucketPayload(`pullrequest:${key}`, facts))

  it('a pull request retargeted (pullrequest:updated with another destination branch) keeps its message, which names the new target; a push changes nothing', async () => {
    bitbucket = await startFakeBitbucket()
    await start('bitbucket', { mappings: { acme: { api: { channel: GENERAL } } } }, {})
    await pr('created', { id: 22 })
    const updates = h.slack.count('chat.update')
    // A push: Bitbucket sends pullrequest:updated with the same title and destination.
    await pr('updated', { id: 22, updatedOn: '2026-11-21T11:00:00.000000+00:00' })
    expect(h.slack.count('chat.update')).toBe(updates)
    const retargeted = bitbucketPayload('pullrequest:updated', { id: 22, updatedOn: '2026-11-21T12:00:00.000000+00:00' }) as { pullrequest: { destination: { branch: { name: string } } } }
    retargeted.pullrequest.destination.branch.name = 'release/2'
    await send('bitbucket', 'pullrequest:updated', retargeted)
    expect(posts(GENERAL)).toBe(1)
    expect(h.slack.count('chat.update')).toBe(updates + 1)
    expect(contextLine(GENERAL)).toContain('· into `release/2`')
  })

  it('code owners from .bitbucket/CODEOWNERS, and a followed author', async () => {
    bitbucket = await startFakeBitbucket()
    bitbucket.auth = { bearer: TOKEN }
    bitbucket.files.set('acme/api@main:.bitbucket/CODEOWNERS', '* lead@example.com\nsrc/server/ @backend-dev # the API people\n')
    bitbucket.diffstat.set('acme/api#21', [{ status: 'modified', old: 'src/server/app.py', new: 'src/server/app.py' }])
    await start('bitbucket', {
      mappings: { acme: { api: { channel: GENERAL, owners: { '@backend-dev': { channel: BACKEND } } } } },
      follow: [{ channel: FOLLOW, authors: ['bob'], only: { into: ['main'] } }],
    }, { BITBUCKET_API_URL: bitbucket.url, BITBUCKET_TOKEN: TOKEN })
    const created = bitbucketPayload('pullrequest:created', { id: 21 })
    const approved = bitbucketPayload('pullrequest:approved', { id: 21, actor: 'carol' })
    await send('bitbucket', 'pullrequest:created', created, 'bb-21-created')
    expect([posts(GENERAL), posts(BACKEND), posts(FOLLOW)]).toEqual([0, 1, 1])
    await send('bitbucket', 'pullrequest:approved', approved, 'bb-21-approved')
    for (const channel of [BACKEND, FOLLOW]) expect(h.slack.messagesIn(channel)[0]!.reactions.has('white_check_mark')).toBe(true)

    // A replay of the pull request's deliveries, under their own ids and under new ones (a redelivery tool, a
    // second hook): the owner's and the follower's channels still have one message each.
    await send('bitbucket', 'pullrequest:created', created, 'bb-21-created')
    await send('bitbucket', 'pullrequest:approved', approved, 'bb-21-approved')
    await send('bitbucket', 'pullrequest:created', created, 'bb-21-created-again')
    await send('bitbucket', 'pullrequest:approved', approved, 'bb-21-approved-again')
    expect([posts(GENERAL), posts(BACKEND), posts(FOLLOW)]).toEqual([0, 1, 1])
    expect(bitbucket.requests.filter((r) => r.path.endsWith('/CODEOWNERS'))).toHaveLength(1)
  })
})
