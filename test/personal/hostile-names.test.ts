import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 30.5: what a host's payload says reaches Slack as text in every surface, not only the channel message:
 * `/prherald mine`, the home tab and direct messages, with a reviewer login, a team name, a title and a URL
 * each carrying a live `@here` and a disguised link.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const AUTHOR = 'U0AUTHOR'
const HOSTILE = 'Eve <!here> <https://evil.example/login|Log in to GitHub>'
const URL_OF_PR = `https://github.com/Codertocat/Hello-World/pull/9|${HOSTILE}`
/** The URL as it may stand inside `<…|label>`: escaped as any text, and its `|` encoded so it cannot end the target. */
const URL_IN_LINK = 'https://github.com/Codertocat/Hello-World/pull/9%7CEve &lt;!here&gt; &lt;https://evil.example/login%7CLog in to GitHub&gt;'

/** Slack would read `text` with no live special mention, and every link in it points at the pull request's URL. */
function expectInert(surface: string, text: string): void {
  expect(text, surface).not.toMatch(/<!(here|channel|everyone)/)
  expect(text, surface).not.toContain('<https://evil.example')
  const targets = [...text.matchAll(/<([^@!#][^|>]*)\|/g)].map((m) => m[1])
  expect(targets.length, surface).toBeGreaterThan(0)
  for (const target of targets) expect(target, surface).toBe(URL_IN_LINK)
}

/** The mrkdwn texts of Block Kit blocks (sections and context elements): what Slack reads for mentions and links. */
function mrkdwnOf(blocks: unknown): string {
  const texts: string[] = []
  for (const block of blocks as Array<{ text?: { type?: string; text?: string }; elements?: Array<{ type?: string; text?: string }> }>) {
    for (const part of [block.text, ...(block.elements ?? [])]) if (part?.type === 'mrkdwn' && part.text !== undefined) texts.push(part.text)
  }
  return texts.join('\n')
}

describe('a pull request whose names, title and URL are hostile', () => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))

  beforeEach(async () => {
    h.slack.users.set(DAVE, { tz: 'Europe/Berlin' })
    h.slack.users.set(AUTHOR, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, {
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, users: { dave: DAVE, Codertocat: AUTHOR },
      mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
    }), { clock: () => BERLIN.wednesdayMorning, directMessageIntervalMs: 50 })
  })

  it('is escaped in the channel message, /prherald mine, the home tab and the direct message alike', async () => {
    const dmOn = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm(DAVE, 'dm on'))
    expect(((await dmOn.json()) as { text?: string }).text).toMatch(/Direct messages are on/)
    const payload = pullRequest('opened', 9, { title: `Fix <!channel> <https://evil.example|the bug>` })
    payload.pull_request.html_url = URL_OF_PR
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }, { ...payload.pull_request.user, login: HOSTILE }]
    payload.pull_request.requested_teams = [{ id: 1, slug: 'evil-team', name: HOSTILE }]
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload })
    expect(await h.service!.settle(10_000)).toBe(true)

    const [posted] = h.slack.messagesIn(CHANNEL)
    expectInert('channel message', mrkdwnOf(posted!.blocks))

    await waitFor('dave\'s direct message', () => h.slack.messagesIn('D0DAVE').length === 1)
    expectInert('direct message', h.slack.messagesIn('D0DAVE')[0]!.text)

    const responseUrl = `${new URL(h.slack.url).origin}/commands/T0ACME/1/mine`
    const mine = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm(AUTHOR, 'mine', { response_url: responseUrl }))
    expect(((await mine.json()) as { text?: string }).text).toBe('Looking…')
    await waitFor('the late answer', () => h.slack.calls.some((c) => c.method.startsWith('commands/')))
    const answer = (h.slack.calls.find((c) => c.method.startsWith('commands/'))!.body as { text: string }).text
    expect(answer).toContain('waits on dave, Eve &lt;!here&gt; &lt;https://evil.example/login|Log in to GitHub&gt;')
    expectInert('/prherald mine', answer)

    expect((await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(AUTHOR, 'Ev-home'))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.views.has(AUTHOR))
    const home = mrkdwnOf(h.slack.views.get(AUTHOR)!.blocks)
    expect(home).toContain('Eve &lt;!here&gt;')
    expectInert('home tab', home)
  })
})
