import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness, personalStores } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { createSlackLimitGate, type SlackLimitGate } from '../helpers/slack-limit-gate.ts'
import { nextRunOf, startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 24.1, quiet hours: a morning of held direct messages does not burst. Twelve people each have two
 * messages held over the weekend (a fake clock); at the start of Monday each gets one gathered message, paced
 * through the fake Slack's published limits (conversations.open Tier 3, users.info Tier 4, chat.postMessage one
 * a second per channel and a workspace budget): no 429, and each message once, though prherald is restarted
 * in the middle of the morning.
 */
const CHANNEL = 'C0000000001'
const PEOPLE = Array.from({ length: 12 }, (_, i) => ({ login: `person${i}`, slack: `U0P${String(i).padStart(2, '0')}` }))
const dmOf = (slack: string) => `D${slack.slice(1)}`

describe.each(personalStores())('a morning of held direct messages ($name)', ({ databaseUrl }) => {
  // A budget's first call may take a few ms longer to arrive (a new connection) than the ones after it, which
  // then look early by the fake's clock; 50 ms of that is forgiven, and on a loaded machine the stalls of this
  // process's event loop, which the fake shares with prherald (slack-limit-gate.ts).
  const gate: SlackLimitGate = createSlackLimitGate({ jitterMs: 50, stalls: true })
  afterAll(() => gate.close())
  const h = personalHarness(databaseUrl, { limits: gate })
  let clock: number

  beforeEach(() => {
    gate.refused.length = 0
    for (const p of PEOPLE) h.slack.users.set(p.slack, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, {
      // A stop gives the morning's round one second: the restart below cuts it off in the middle.
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, server: { shutdown_timeout_seconds: 1 },
      users: Object.fromEntries(PEOPLE.map((p) => [p.login, { slack: p.slack, direct_messages: 'on' }])),
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
  })

  const start = async () => {
    // Paced as in production (the other tests turn pacing off against a fake that enforces nothing).
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', { SLACK_API_URL: h.slack.url, PRHERALD_SLACK_PACING: 'published', ...h.database.env }), {
      clock: () => clock, directMessageIntervalMs: 50,
    })
  }
  const asked = (number: number) => {
    const payload = pullRequest('opened', number)
    payload.pull_request.requested_reviewers = PEOPLE.map((p) => ({ ...payload.pull_request.user, login: p.login }))
    return payload
  }
  const sent = () => PEOPLE.filter((p) => h.slack.messagesIn(dmOf(p.slack)).length > 0).length

  it('sends each person one gathered message at the start of their day, paced, once across a restart', async () => {
    clock = BERLIN.fridayEvening
    await start()
    for (const number of [1, 2]) {
      expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: asked(number) })).status).toBe(200)
      expect(await h.service!.settle(10_000)).toBe(true)
    }
    await nextRunOf(h.service!, 'direct-messages')
    expect(sent()).toBe(0)
    await h.service!.stop()

    clock = BERLIN.mondayStart + 60_000
    await start()
    await waitFor('the first messages of the morning', () => sent() >= 3, 20_000)
    const stopped = h.service!
    await stopped.stop()
    expect(sent()).toBeLessThan(PEOPLE.length)
    // The cut-off round may have opened its person's conversation but not posted: the restart opens it again.
    const openedNotSent = h.slack.count('conversations.open') - sent()
    expect(openedNotSent).toBeLessThanOrEqual(1)
    // Stopped means stopped: the cut-off round, which was waiting on the pacer, ended with the stop (a round
    // still running a second after the window is said), so it calls Slack no more.
    expect(stopped.entries().map((e) => e.msg)).not.toContain('timed jobs still running a second after the shutdown window; they may call Slack after the stop')
    expect(stopped.entries().at(-1)).toMatchObject({ msg: 'stopped' })
    expect(gate.refused).toEqual([])
    // The restart comes five minutes later: the stopped server's claims (a minute) have lapsed, and Slack's
    // budgets have filled again as the restarted server's start full.
    clock += 5 * 60_000
    gate.advance(5 * 60_000)
    await start()
    await waitFor('everyone\'s message', () => sent() === PEOPLE.length, 30_000)
    await nextRunOf(h.service!, 'direct-messages')

    for (const p of PEOPLE) {
      const messages = h.slack.messagesIn(dmOf(p.slack))
      expect(messages, p.login).toHaveLength(1)
      expect(messages[0]!.text).toMatch(/^While you were away \(2 updates\):\n• :eyes: Your review is requested on <[^\n]+\n• :eyes: Your review is requested on </)
    }
    // Paced within Slack's published limits: nothing was refused, whichever method.
    expect(gate.refused).toEqual([])
    expect(h.slack.count('conversations.open')).toBeLessThanOrEqual(PEOPLE.length + openedNotSent)
  }, 90_000)
})
