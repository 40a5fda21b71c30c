import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../src/config/load-config.ts'
import { START_REVIEW_ACTION } from '../../src/slack/decode-interaction.ts'
import { startFakeGithub, type FakeGithub } from '../helpers/fake-github.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { testEnv } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * prherald-reconcile run locally (no server) updates a message with the server's worker: the Start review
 * button stays, mapped people stay mentions, and a newly requested mapped reviewer is pinged once in the
 * thread. Its own copy of the worker once dropped all three (issue 22, item 2).
 */
const CHANNEL = 'C0000000001'
const REPO = 'Codertocat/Hello-World'
const TOKEN = 'ghp_reconcile_people_token'
const AUTHOR = 'U0CODER001'
const DAVE = 'U0DAVE0001'
const h = usePrherald({
  config: {
    users: { Codertocat: AUTHOR, dave: DAVE }, notify: { review_requests: 'thread' },
    mappings: { Codertocat: { 'Hello-World': { channel: CHANNEL } } },
  },
})
let github: FakeGithub
let env: Env

const message = () => {
  const [found, ...others] = h.slack.messagesIn(CHANNEL)
  expect(others).toEqual([])
  if (!found) throw new Error('no message in the channel')
  return found
}
const hasButton = () => JSON.stringify(message().blocks).includes(`"action_id":"${START_REVIEW_ACTION}"`)

beforeEach(async () => {
  github = await startFakeGithub()
  github.token = TOKEN
  github.hooks.set(REPO, [])
  env = testEnv(h.dir.path, 'github', {
    SLACK_API_URL: h.slack.url, GITHUB_API_URL: github.url, GITHUB_TOKEN: TOKEN, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
  })
  const opened = pullRequest('opened', 30, { title: 'Change 30' })
  Object.assign(opened.pull_request, { requested_reviewers: [], requested_teams: [], updated_at: '2026-11-20T10:00:00Z' })
  await h.start(env)
  try {
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: opened })).status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
  } finally {
    await h.stop()
  }
  // While prherald was down: the pull request was renamed and dave (mapped) was asked to review.
  const now = pullRequest('edited', 30, { title: 'Change 30, renamed' }).pull_request as Record<string, any>
  Object.assign(now, { requested_reviewers: [{ ...now.user, login: 'dave', id: 4242 }], requested_teams: [], updated_at: '2026-11-20T11:00:00Z' })
  github.pulls.set(`${REPO}#30`, now)
})
afterEach(async () => {
  await github.close()
})

describe('prherald-reconcile, no server running, with people and the review button', () => {
  it('keeps the button and the mentions, and pings the newly requested reviewer once', async () => {
    expect(hasButton()).toBe(true)
    expect(JSON.stringify(message().blocks)).toContain(`<@${AUTHOR}>`)

    const result = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(`changed ${REPO}#30: title`)
    expect(message().text).toContain('Change 30, renamed')
    expect(hasButton()).toBe(true)
    const blocks = JSON.stringify(message().blocks)
    expect(blocks).toContain(`<@${AUTHOR}>`)
    expect(blocks).toContain(`<@${DAVE}>`)
    expect(h.slack.repliesTo(CHANNEL, message().ts).map((r) => r.text)).toEqual([`:eyes: <@${DAVE}> your review is requested`])

    const again = await runCliAsync('reconcile', [], env, h.dir.path)
    expect(again.status, again.stderr).toBe(0)
    expect(h.slack.repliesTo(CHANNEL, message().ts)).toHaveLength(1)
  })
})
