import Database from 'better-sqlite3'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { LIFECYCLE_VERSION } from '../../src/store/stored-json.ts'
import { BERLIN, personalHarness } from '../helpers/personal-setup.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'

/**
 * Issue 31.6: `/prherald mine` and the home tab read a message's lifecycle through the store, which decodes
 * it with the versioned reader (src/store/stored-json.ts), as the batch and the digest do: a later version of
 * the lifecycle's shape then needs only the store's upgrade, not one in each reader.
 */
const DAVE = 'U0DAVE'
const LINK = /<https:\/\/github.com\/Codertocat\/Hello-World\/pull\/9\|/

describe('a stored lifecycle, read by /prherald mine and the home tab', () => {
  const h = personalHarness(async () => ({ env: {}, drop: async () => {} }))
  let events = 0

  const restart = async () => {
    await h.service?.stop()
    h.service = await startPrherald(h.dir.path, testEnv(h.dir.path, 'github', {
      SLACK_API_URL: h.slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
    }), { clock: () => BERLIN.wednesdayMorning })
  }
  beforeEach(async () => {
    h.slack.users.set(DAVE, { tz: 'Europe/Berlin' })
    writeConfig(h.dir.path, {
      git_provider: 'github', users: { dave: DAVE, Codertocat: 'U0AUTHOR' },
      mappings: { Codertocat: { 'Hello-World': { channel: 'C0000000001' } } },
    })
    await restart()
    const payload = pullRequest('opened', 9)
    payload.pull_request.requested_reviewers = [{ ...payload.pull_request.user, login: 'dave' }]
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload })
    expect(await h.service!.settle(10_000)).toBe(true)
  })

  /** The stored lifecycle column, as the database holds it; `rewrite` replaces it (the server stopped). */
  const column = (rewrite?: (stored: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> => {
    const db = new Database(join(h.dir.path, 'prherald.db'))
    try {
      const row = db.prepare('SELECT lifecycle FROM slack_messages WHERE pr_number = 9').get() as { lifecycle: string }
      const stored = JSON.parse(row.lifecycle) as Record<string, unknown>
      if (rewrite) db.prepare('UPDATE slack_messages SET lifecycle = ? WHERE pr_number = 9').run(JSON.stringify(rewrite(stored)))
      return stored
    } finally {
      db.close()
    }
  }
  const mine = async () => {
    const before = h.slack.calls.filter((c) => c.method.startsWith('commands/')).length
    const form = commandForm(DAVE, 'mine', { response_url: `${new URL(h.slack.url).origin}/commands/T0ACME/1/part` })
    expect((await sendSignedSlack(h.service!.url, '/webhook/slack/commands', form)).status).toBe(200)
    await waitFor('the late answer', () => h.slack.calls.filter((c) => c.method.startsWith('commands/')).length > before)
    return (h.slack.calls.filter((c) => c.method.startsWith('commands/')).at(-1)!.body as { text: string }).text
  }
  const home = async () => {
    const before = h.slack.count('views.publish')
    expect((await sendSignedSlack(h.service!.url, '/webhook/slack/events', homeOpened(DAVE, `Ev${++events}`))).status).toBe(200)
    await waitFor('the home tab', () => h.slack.count('views.publish') > before)
    return JSON.stringify(h.slack.views.get(DAVE)?.blocks)
  }

  it('shows a lifecycle of the current version, and one written before versions existed, decoded by the store', async () => {
    expect(column().v).toBe(LIFECYCLE_VERSION)
    expect(await mine()).toMatch(new RegExp(`^\\*Waiting on you\\*\\n• ${LINK.source}`))
    expect(await home()).toMatch(LINK)

    // Version 0 (no `v`): the store's reader upgrades it; neither the command nor the tab knows versions.
    await h.service!.stop()
    h.service = undefined
    column(({ v: _v, ...rest }) => rest)
    expect(column().v).toBeUndefined()
    await restart()
    expect(await mine()).toMatch(new RegExp(`^\\*Waiting on you\\*\\n• ${LINK.source}`))
    expect(await home()).toMatch(LINK)
  })
})
