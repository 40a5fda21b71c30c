import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { MANIFEST_SCOPES, startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { githubExample } from '../helpers/github-examples.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { commandForm, sendSignedSlack } from '../helpers/slack-requests.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * `assign:` on GitHub, end to end: real signed deliveries to the real server, the fake GitHub records the
 * review requests (POST requested_reviewers, as the REST docs take them) and the fake Slack answers presence
 * and status as Slack's docs show. The team `backend` has the pull requests' author (Codertocat) and three others.
 */
const CHANNEL = 'C0000000001'
const PEOPLE = { dave: 'U0DAVE0001', erin: 'U0ERIN0001', frank: 'U0FRANK001' }
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let github: FakeGithub
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  slack.scopes.push(...MANIFEST_SCOPES)
  for (const id of Object.values(PEOPLE)) slack.users.set(id, { realName: id })
  github = await startFakeGithub()
  github.teamMembers.set('Codertocat/backend', ['Codertocat', 'dave', 'erin', 'frank'])
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  await github.close()
  dir.remove()
})

async function start(assign: Record<string, unknown>) {
  writeConfig(dir.path, {
    git_provider: 'github', server: { shutdown_timeout_seconds: 1 }, users: PEOPLE, teams: { backend: 'S0BACKEND1' },
    mappings: { Codertocat: { '*': { channel: CHANNEL, assign: { team: 'backend', ...assign } } } },
  })
  service = await startPrherald(dir.path, testEnv(dir.path, 'github', {
    SLACK_API_URL: slack.url, GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_test', SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
  }))
}

type Json = Record<string, any>
async function open(number: number, change: (pr: Json) => void = () => {}) {
  const payload = pullRequest('opened', number)
  Object.assign(payload.pull_request, { requested_reviewers: [], requested_teams: [] })
  change(payload.pull_request)
  expect((await deliver(service!.url, 'github', { event: 'pull_request', payload })).status).toBe(200)
  await waitFor(`the review request of #${number}`, () => github.reviewRequests.has(`Codertocat/Hello-World#${number}`))
  return github.reviewRequests.get(`Codertocat/Hello-World#${number}`)!
}

/** The thread's replies of pull request `number`'s message. */
function linesOf(number: number): string[] {
  const message = slack.messagesIn(CHANNEL).find((m) => JSON.stringify(m.blocks ?? m.text).includes(`/pull/${number}`))
  return message ? slack.repliesTo(CHANNEL, message.ts).map((r) => r.text) : []
}

describe('assign: on GitHub', () => {
  it('asks the team in turn across pull requests, never the author, and says so once in the thread', async () => {
    await start({})
    const asked = []
    for (const number of [2, 3, 4, 5, 6, 7]) asked.push((await open(number)).map((body) => body.reviewers))
    expect(asked).toEqual([[['dave']], [['erin']], [['frank']], [['dave']], [['erin']], [['frank']]])
    await waitFor('the line in the thread', () => linesOf(2).length > 0)
    expect(linesOf(2)).toEqual([`Assigned <@${PEOPLE.dave}> (round robin)`])
    expect(linesOf(3)).toEqual([`Assigned <@${PEOPLE.erin}> (round robin)`])
  })

  it('never asks someone asked already, and counts a member asked by a person towards count', async () => {
    await start({ count: 2 })
    const body = await open(2, (pr) => { pr.requested_reviewers = [{ login: 'erin', id: 7, type: 'User' }] })
    // erin counts as one of the two: one more, and not erin.
    expect(body).toEqual([{ reviewers: ['dave'] }])
  })

  it('skip_away passes over someone Slack shows away (users.getPresence)', async () => {
    slack.users.set(PEOPLE.dave, { realName: 'dave', presence: 'away' })
    await start({ count: 1 })
    expect(await open(2)).toEqual([{ reviewers: ['erin'] }])
    await waitFor('the line', () => linesOf(2).length > 0)
    expect(linesOf(2)).toEqual([`Assigned <@${PEOPLE.erin}> (round robin; dave is away)`])
  })

  it('skip_away reads an out-of-office status and the /prherald away mark', async () => {
    slack.users.set(PEOPLE.dave, { realName: 'dave', status: { text: 'Vacationing', emoji: ':palm_tree:', expiration: 0 } })
    await start({ count: 1 })
    const until = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10)
    const answer = await sendSignedSlack(service!.url, '/webhook/slack/commands', commandForm(PEOPLE.erin, `away until ${until}`))
    expect(await answer.text()).toContain(`Away until ${until}`)
    expect(await open(2)).toEqual([{ reviewers: ['frank'] }])
    await waitFor('the line', () => linesOf(2).length > 0)
    expect(linesOf(2)).toEqual([`Assigned <@${PEOPLE.frank}> (round robin; dave is out of office; erin is away until ${until})`])
    // Back: erin is asked again at her turn.
    await sendSignedSlack(service!.url, '/webhook/slack/commands', commandForm(PEOPLE.erin, 'away off'))
    expect(await open(3)).toEqual([{ reviewers: ['erin'] }])
  })

  it('waits while the pull request is a draft, and assigns once it is made ready', async () => {
    await start({})
    const draft = pullRequest('opened', 2, { draft: true })
    Object.assign(draft.pull_request, { requested_reviewers: [], requested_teams: [] })
    expect((await deliver(service!.url, 'github', { event: 'pull_request', payload: draft })).status).toBe(200)
    expect(await service!.settle(10_000)).toBe(true)
    expect(github.reviewRequests.size).toBe(0)
    const ready = pullRequest('ready_for_review', 2)
    Object.assign(ready.pull_request, { requested_reviewers: [], requested_teams: [], updated_at: new Date(Date.now() + 60_000).toISOString() })
    expect((await deliver(service!.url, 'github', { event: 'pull_request', payload: ready })).status).toBe(200)
    await waitFor('the review request', () => github.reviewRequests.has('Codertocat/Hello-World#2'))
    expect(github.reviewRequests.get('Codertocat/Hello-World#2')).toEqual([{ reviewers: ['dave'] }])
  })

  it('a request GitHub refuses is asked again, the same decision, with the pull request\'s next delivery', async () => {
    await start({})
    github.failures.push({ method: 'POST', path: /requested_reviewers$/, status: 422, times: 1 })
    const opened = pullRequest('opened', 2)
    Object.assign(opened.pull_request, { requested_reviewers: [], requested_teams: [] })
    expect((await deliver(service!.url, 'github', { event: 'pull_request', payload: opened })).status).toBe(200)
    expect(await service!.settle(10_000)).toBe(true)
    expect(github.reviewRequests.size).toBe(0)
    expect(service!.entries().some((e) => e.msg === 'the host refused the review request; asked again with the pull request\'s next delivery')).toBe(true)
    const edited = pullRequest('edited', 2, { title: 'A better title' })
    Object.assign(edited.pull_request, { requested_reviewers: [], requested_teams: [], updated_at: new Date(Date.now() + 60_000).toISOString() })
    expect((await deliver(service!.url, 'github', { event: 'pull_request', payload: edited })).status).toBe(200)
    await waitFor('the review request asked again', () => github.reviewRequests.has('Codertocat/Hello-World#2'))
    expect(github.reviewRequests.get('Codertocat/Hello-World#2')).toEqual([{ reviewers: ['dave'] }])
    await waitFor('the line', () => linesOf(2).length > 0)
    expect(linesOf(2)).toEqual([`Assigned <@${PEOPLE.dave}> (round robin)`])
  })

  it('assigns when a review is requested from the team, if the announcement assigned nobody', async () => {
    // At the announcement the team's members cannot be read: nobody is assigned, and the pull request is announced.
    github.teamMembers.delete('Codertocat/backend')
    await start({})
    const opened = pullRequest('opened', 2)
    Object.assign(opened.pull_request, { requested_reviewers: [], requested_teams: [] })
    expect((await deliver(service!.url, 'github', { event: 'pull_request', payload: opened })).status).toBe(200)
    expect(await service!.settle(10_000)).toBe(true)
    expect(github.reviewRequests.size).toBe(0)
    github.teamMembers.set('Codertocat/backend', ['Codertocat', 'dave', 'erin', 'frank'])
    const team = { name: 'backend', id: 42, node_id: 'T_42', slug: 'backend', description: null, privacy: 'closed', permission: 'pull', parent: null }
    const requested = githubExample('pull_request', 'review_requested') as Json
    delete requested.requested_reviewer
    requested.requested_team = team
    Object.assign(requested.pull_request, { number: 2, requested_reviewers: [], requested_teams: [team], draft: false, updated_at: new Date(Date.now() + 60_000).toISOString() })
    requested.number = 2
    expect((await deliver(service!.url, 'github', { event: 'pull_request', payload: requested })).status).toBe(200)
    await waitFor('the review request', () => github.reviewRequests.has('Codertocat/Hello-World#2'))
    expect(github.reviewRequests.get('Codertocat/Hello-World#2')).toEqual([{ reviewers: ['dave'] }])
  })

  it('least_busy asks whoever has the fewest open review requests', async () => {
    await start({ strategy: 'least_busy' })
    // dave and erin each wait on an open pull request already; frank on none.
    const payload = pullRequest('opened', 9)
    Object.assign(payload.pull_request, { requested_reviewers: [{ login: 'dave', id: 7, type: 'User' }, { login: 'erin', id: 8, type: 'User' }], requested_teams: [] })
    expect((await deliver(service!.url, 'github', { event: 'pull_request', payload })).status).toBe(200)
    await waitFor('#9 announced', () => linesOf(9).length > 0 || slack.messagesIn(CHANNEL).length > 0)
    expect(await open(10)).toEqual([{ reviewers: ['frank'] }])
  })
})
