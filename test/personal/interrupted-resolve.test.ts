import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'

/**
 * A stop in the middle of resolving who a direct message reaches and when (Slack's users.info and
 * usergroups.users.list held by a 429): the look-ups cut off are not taken for failed ones. Before, the
 * default zone (UTC) became the person's due time and the team had no members, both stored: held over the
 * weekend, the author's message was due an hour after their Monday started, and the team's member had none.
 */
const CHANNEL = 'C0000000001'
const AUTHOR = 'U0AUTHOR'
const ERIN = 'U0ERIN'
// Longer than the stop's one-second window; short enough to have passed at the restart, for PostgreSQL keeps
// the hold for every replica (store/postgres-pacing-budget.ts).
const held = { status: 429, headers: { 'retry-after': '4' } }

describe.each(personalStores())('a stop while direct messages are resolved ($name)', ({ databaseUrl }) => {
  const h = personalHarness(databaseUrl)
  let clock: number

  beforeEach(() => {
    h.slack.users.set(AUTHOR, { tz: 'Europe/Berlin' })
    h.slack.users.set(ERIN, { tz: 'Europe/Berlin' })
    h.slack.groups.set('S0BACKEND', [ERIN])
    writeConfig(h.dir.path, {
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, server: { shutdown_timeout_seconds: 1 },
      users: { Codertocat: { slack: AUTHOR, direct_messages: 'on' }, dave: 'U0DAVE', erin: { slack: ERIN, direct_messages: 'on' } },
      teams: { backend: 'S0BACKEND' },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
  })

  const start = async () => {
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', { SLACK_API_URL: h.slack.url, ...h.database.env }), {
      clock: () => clock, directMessageIntervalMs: 50,
    })
  }
  const send = async (event: string, payload: unknown) => {
    expect((await deliver(h.service!.url, 'github', { event, payload })).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  }

  it('leaves what it was resolving to the next start, which sends it at the start of their day', async () => {
    clock = BERLIN.fridayEvening
    h.slack.faults.push({ method: 'users.info', fault: held }, { method: 'usergroups.users.list', fault: held })
    await start()
    const opened = pullRequest('opened', 4)
    opened.pull_request.requested_teams = [{ name: 'Backend', slug: 'backend', id: 1 }]
    await send('pull_request', opened)
    await send('pull_request_review', review('approved', 4, 'dave'))
    // The round's first look-up was refused and waits on the pacer for its Retry-After when the stop cuts it off.
    await waitFor('a look-up refused', () => h.slack.count('users.info') + h.slack.count('usergroups.users.list') >= 1)
    const first = h.service!
    await first.stop()
    expect(first.logs.filter((l) => /look-up failed|could not be read/.test(l))).toEqual([])

    // Monday's Slack answers (a refusal the round did not reach is not left for it).
    h.slack.faults.length = 0
    clock = BERLIN.mondayStart + 60_000
    await start()
    await waitFor('the author\'s and the team member\'s messages', () => h.slack.messagesIn('D0AUTHOR').length === 1 && h.slack.messagesIn('D0ERIN').length === 1)
    expect(h.slack.messagesIn('D0AUTHOR')[0]!.text).toMatch(/^:white_check_mark: dave approved </)
    expect(h.slack.messagesIn('D0ERIN')[0]!.text).toMatch(/^:eyes: Your team Backend is asked to review </)
  })
})
