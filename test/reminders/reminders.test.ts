import { beforeEach, describe, expect, it } from 'vitest'
import type { Provider } from '../../machines/pull-request-event.ts'
import { bitbucketFixture } from '../helpers/bitbucket-fixtures.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * Reminders end to end (docs/review-loop.md#reminders), on both stores: the real server with a fake clock, the
 * fake Slack, real signed deliveries in each host's shape. Working hours are the default 08:00-19:00 (11 hours a
 * working day), in UTC: 2026-11-27 is a Friday.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const ERIN = 'U0ERIN'
const GINA = 'U0GINA'
const AUTHOR = 'U0AUTHOR'
const at = (iso: string) => Date.parse(iso)
const FRIDAY_15 = at('2026-11-27T15:00:00Z')
const PR_URL = 'https://github.com/Codertocat/Hello-World/pull/9'
const REMINDERS = { after: '1d', every: '1d', escalate_after: '3d' }
type Json = Record<string, any>

describe.each(personalStores())('reminders ($name)', ({ databaseUrl }) => {
  const h = personalHarness(databaseUrl)
  let clock = FRIDAY_15

  beforeEach(() => {
    clock = FRIDAY_15
    for (const user of [DAVE, ERIN, GINA, AUTHOR, 'U0ALICE', 'U0DANA']) h.slack.users.set(user, { tz: 'UTC' })
  })

  const start = async (provider: Provider, config: Json) => {
    writeConfig(h.dir.path, { git_provider: provider, mappings: config.mappings, notify: { direct_messages: 'on', reminders: REMINDERS }, server: { shutdown_timeout_seconds: 1 }, ...config })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, provider, {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, ...h.database.env,
    }), { clock: () => clock, directMessageIntervalMs: 50, reminderIntervalMs: 50 })
  }
  const github = (config: Json = {}) => start('github', {
    users: { dave: DAVE, erin: { slack: ERIN, direct_messages: 'off' }, gina: GINA, Codertocat: AUTHOR },
    mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } }, ...config,
  })
  const send = async (provider: Provider, event: string, payload: Json) => {
    expect((await deliver(h.service!.url, provider, { event, payload })).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  }
  const asked = (number: number, logins: string[], draft = false) => {
    const payload = pullRequest('opened', number, { draft })
    payload.pull_request.requested_reviewers = logins.map((login) => ({ ...payload.pull_request.user, login }))
    return payload
  }
  /** Lets the reminder job run `n` more rounds at the clock's time (each round logs once). */
  const rounds = async (n = 2) => {
    const done = () => h.service!.entries().filter((e) => e.msg === 'reminders looked at').length
    const target = done() + n
    await waitFor(`${n} reminder rounds`, () => done() >= target)
  }
  /** Moves the clock and lets the job look (the first round may have started before the move: two more follow). */
  const moveTo = async (iso: string) => {
    clock = at(iso)
    await rounds(3)
  }
  const remindersTo = (user: string) => h.slack.messagesIn(`D${user.slice(1)}`).map((m) => m.text).filter((t) => t.includes('has waited'))
  const thread = () => {
    const [message] = h.slack.messagesIn(CHANNEL)
    return h.slack.repliesTo(CHANNEL, message!.ts).map((r) => r.text).filter((t) => t.includes('has waited'))
  }
  const command = async (user: string, text: string) =>
    ((await (await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm(user, text))).json()) as { text: string }).text

  it('GitHub: a reviewer is reminded after one working day (across the weekend), then every working day, and the thread is told once at three', async () => {
    await github()
    await send('github', 'pull_request', asked(9, ['dave']))
    await rounds()
    // Friday 15:00-19:00 is 4 hours; Monday 08:00-14:59 is 6:59 more: not yet a working day of 11 hours.
    await moveTo('2026-11-30T14:59:00Z')
    expect(remindersTo(DAVE)).toEqual([])
    await moveTo('2026-11-30T15:00:00Z')
    await waitFor('the first reminder', () => remindersTo(DAVE).length === 1)
    expect(remindersTo(DAVE)[0]).toBe(`:hourglass_flowing_sand: <${PR_URL}|Codertocat/Hello-World#9 Update the README with new information.> has waited 1 working day for your review`)
    // At most once per working day: Monday evening and Tuesday morning add nothing.
    await moveTo('2026-11-30T18:59:00Z')
    await moveTo('2026-12-01T14:59:00Z')
    expect(remindersTo(DAVE)).toHaveLength(1)
    await moveTo('2026-12-01T15:00:00Z')
    await waitFor('the second reminder', () => remindersTo(DAVE).length === 2)
    expect(remindersTo(DAVE)[1]).toMatch(/has waited 2 working days for your review$/)
    expect(thread()).toEqual([])
    // Three working days (33 hours) on Wednesday 15:00: one line in the thread naming the reviewer, once.
    await moveTo('2026-12-02T15:00:00Z')
    await waitFor('the thread line', () => thread().length === 1)
    await moveTo('2026-12-02T16:00:00Z')
    expect(thread()).toEqual([`:hourglass_flowing_sand: This pull request has waited 3 working days for a review by <@${DAVE}>.`])
    // The other people in the message were never reminded of anything.
    expect(remindersTo(AUTHOR)).toEqual([])
  }, 60_000)

  it('GitHub: the author is reminded once changes are requested, and the reviewer no longer', async () => {
    await github()
    await send('github', 'pull_request', asked(9, ['dave']))
    await rounds()
    await send('github', 'pull_request_review', review('changes_requested', 9, 'dave'))
    await rounds()
    await moveTo('2026-11-30T15:01:00Z')
    await waitFor('the author\'s reminder', () => remindersTo(AUTHOR).length === 1)
    expect(remindersTo(AUTHOR)[0]).toMatch(/Hello-World#9 Update the README with new information\.> has waited 1 working day for you: changes requested by dave$/)
    expect(remindersTo(DAVE)).toEqual([])
  }, 60_000)

  it('nothing for a draft, a muted pull request, someone not in users: or someone who turned direct messages off', async () => {
    await github()
    await send('github', 'pull_request', asked(9, ['dave', 'erin', 'frank']))
    await send('github', 'pull_request', asked(10, ['gina'], true))
    // The control: the same person on a pull request that is not a draft is reminded.
    await send('github', 'pull_request', asked(11, ['gina']))
    expect(await command(DAVE, `mute ${PR_URL}`)).toBe('Muted: no more direct messages about it.')
    await rounds()
    await moveTo('2026-12-03T10:00:00Z')
    await waitFor('the reminder of the control', () => remindersTo(GINA).length === 1)
    expect(remindersTo(GINA)[0]).toContain('Hello-World#11 ')
    await rounds()
    expect([remindersTo(DAVE), remindersTo(ERIN)]).toEqual([[], []])
    // frank, in no users: entry, has no Slack user to be told: every reminder sent went to gina.
    const everyReminder = [...h.slack.messages.values()].filter((m) => m.channel.startsWith('D') && m.text.includes('has waited'))
    expect(everyReminder.map((m) => m.channel)).toEqual([`D${GINA.slice(1)}`])
    expect(thread()).toEqual([])
  }, 60_000)

  it('/prherald snooze holds one pull request\'s reminders for that person, for working time', async () => {
    await github()
    await send('github', 'pull_request', asked(9, ['dave']))
    await rounds()
    clock = at('2026-11-30T10:00:00Z')
    expect(await command(DAVE, `snooze ${PR_URL} 2w`)).toMatch(/^Write `\/prherald snooze <pull request link> 2d`/)
    expect(await command(DAVE, 'snooze https://github.com/Codertocat/Hello-World/pull/404 2d')).toMatch(/^Give the link of an open pull request/)
    expect(await command('U0NOBODY', `snooze ${PR_URL} 2d`)).toMatch(/^prherald does not know you yet/)
    expect(await command(DAVE, `snooze ${PR_URL} 2d`)).toBe('Snoozed: no reminders about it for 2d of your working time.')
    // Due on Monday 15:00 without the snooze; it runs 22 working hours from Monday 10:00, to Wednesday 10:00.
    await moveTo('2026-11-30T15:00:00Z')
    await moveTo('2026-12-02T09:59:00Z')
    expect(remindersTo(DAVE)).toEqual([])
    await moveTo('2026-12-02T10:00:00Z')
    await waitFor('the reminder after the snooze', () => remindersTo(DAVE).length === 1)
    expect(remindersTo(DAVE)[0]).toMatch(/has waited 2 working days for your review$/)
  }, 60_000)

  it('GitLab: a reviewer asked on a merge request is reminded', async () => {
    await start('gitlab', { users: { alice: 'U0ALICE', bob: AUTHOR }, mappings: { acme: { api: { channel: CHANNEL } } } })
    await send('gitlab', 'Merge Request Hook', mergeRequestHook('open', { iid: 7, reviewers: [{ username: 'alice' }] }))
    await rounds()
    await moveTo('2026-11-30T15:00:00Z')
    await waitFor('the reviewer\'s reminder', () => remindersTo('U0ALICE').length === 1)
    expect(remindersTo('U0ALICE')[0]).toBe(':hourglass_flowing_sand: <https://gitlab.example.com/acme/api/-/merge_requests/7|acme/api#7 Add rate limiting> has waited 1 working day for your review')
  }, 60_000)

  it('Bitbucket: the author is reminded once changes are requested', async () => {
    const created = bitbucketFixture('created') as Json
    const changes = bitbucketFixture('changes_request_created') as Json
    const author = created.pullrequest.author.account_id as string
    const reviewer = changes.changes_request.user.account_id as string
    await start('bitbucket', { users: { [author]: 'U0DANA', [reviewer]: DAVE }, mappings: { acme: { '*': { channel: CHANNEL } } } })
    await send('bitbucket', 'pullrequest:created', created)
    await send('bitbucket', 'pullrequest:changes_request_created', changes)
    await rounds()
    await moveTo('2026-11-30T15:00:00Z')
    await waitFor('the author\'s reminder', () => remindersTo('U0DANA').length === 1)
    expect(remindersTo('U0DANA')[0]).toMatch(/has waited 1 working day for you: changes requested by /)
  }, 60_000)
})
