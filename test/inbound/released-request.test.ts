import Database from 'better-sqlite3'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { BERLIN, personalHarness } from '../helpers/personal-setup.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, writeConfig } from '../helpers/start-prherald.ts'

/**
 * Issue 31.4: a Slack request is taken (its trigger_id committed) before it is acted on. When its handler
 * then fails (here the database refuses the preference's write for a moment), the request is released, so
 * that Slack's retry of it is acted on instead of being dropped as already taken: the request is not lost.
 */
const DAVE = 'U0DAVE'

describe('a taken Slack request whose handler fails', () => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))

  beforeEach(async () => {
    writeConfig(h.dir.path, {
      git_provider: 'github', notify: { direct_messages: 'opt_in' }, users: { dave: DAVE },
      mappings: { Codertocat: { 'Hello-World': { channel: 'C0000000001' } } },
    })
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
    }), { clock: () => BERLIN.wednesdayMorning })
  })

  /** Another program makes the preference's write fail (a trigger), then lets it succeed again. */
  const database = (sql: string) => {
    const db = new Database(join(h.dir.path, 'prherald.db'))
    try {
      db.exec(sql)
    } finally {
      db.close()
    }
  }

  it('is released, and Slack\'s retry of it (the same trigger_id) is acted on', async () => {
    const form = commandForm(DAVE, 'dm on', { trigger_id: 'trigger-failing-once' })
    database(`CREATE TRIGGER refuse_preference BEFORE INSERT ON person_preferences BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`)
    const failed = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', form)
    expect(failed.status).toBeGreaterThanOrEqual(500)
    expect(await failed.text()).not.toMatch(/refused for the test|at .*\.js/)

    database('DROP TRIGGER refuse_preference')
    const retried = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', form, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_error' } })
    expect(retried.status).toBe(200)
    expect(((await retried.json()) as { text?: string }).text).toMatch(/Direct messages are on/)
    // Taken again by the retry: a third copy is Slack's retry of a request acted on, acknowledged without acting.
    expect(await (await sendSignedSlack(h.service!.url, '/webhook/slack/commands', form)).json()).toEqual({})
  })
})
