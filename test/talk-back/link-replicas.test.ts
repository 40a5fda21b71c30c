import pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFakeOAuthHost, type FakeOAuthHost } from '../helpers/fake-oauth.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { freePort } from '../helpers/free-port.ts'
import { consent, followCallback, linkIn, openLink } from '../helpers/oauth-browser.ts'
import { grantPersonalScopes } from '../helpers/personal-setup.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { ALICE, newTokenKey, talkBackEnv } from '../helpers/talk-back-setup.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 33.1 on PostgreSQL with two replicas behind one public URL: the link is asked for on one, opened on the
 * other, and the host's redirect comes back to the first; the flow, the cookie's binding and the link live in
 * the shared database, sealed. Then the second replica lists it and unlinks it.
 */
const KEY = newTokenKey()

let database: TestDatabase
beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())

describe('linking across two replicas on PostgreSQL', () => {
  const dir = makeTempDir()
  let schema: TestDatabase
  let slack: FakeSlack
  let oauth: FakeOAuthHost
  const replicas: TestService[] = []
  afterAll(() => dir.remove())

  beforeEach(async () => {
    schema = await createTestSchema(database)
    slack = await startFakeSlack()
    grantPersonalScopes(slack)
    slack.users.set(ALICE, { tz: 'Europe/Berlin' })
    oauth = await startFakeOAuthHost('gitlab')
    writeConfig(dir.path, {
      git_provider: 'gitlab', users: { alice: ALICE }, slack: { talk_back: { reviews: 'on' } },
      mappings: { acme: { '*': { channel: 'C0000000001' } } },
    })
    const ports = [await freePort(), await freePort()]
    for (const port of ports) {
      replicas.push(await startPrherald(dir.path, testEnv(dir.path, 'gitlab', {
        SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET, PRHERALD_DATABASE_URL: schema.url,
        PRHERALD_LISTEN: `127.0.0.1:${port}`, ...talkBackEnv(oauth, { key: KEY, publicUrl: `http://127.0.0.1:${ports[1]}` }),
      })))
    }
  })
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((r) => r.stop()))
    await Promise.all([slack.close(), oauth.close()])
    await schema.drop()
  })

  const command = async (replica: TestService, text: string) =>
    ((await (await sendSignedSlack(replica.url, '/webhook/slack/commands', commandForm(ALICE, text))).json()) as { text: string }).text

  it('links with the link from one replica opened on the other, and unlinks on the second', async () => {
    const [a, b] = replicas as [TestService, TestService]
    const url = linkIn(await command(a, 'link gitlab'))!
    expect(new URL(url).origin).toBe(b.url)
    const opened = await openLink(url)
    expect(opened.res.status).toBe(302)
    // The balancer sends the host's redirect back to the first replica.
    const back = new URL(await consent(opened.location))
    const done = await followCallback(`${a.url}${back.pathname}${back.search}`, opened.cookie)
    expect(done.status).toBe(200)
    expect(done.html).toContain(`Your GitLab account alice is linked`)

    const client = new pg.Client({ connectionString: schema.url })
    await client.connect()
    try {
      const { rows } = await client.query('SELECT * FROM linked_accounts')
      expect(rows).toHaveLength(1)
      for (const token of oauth.tokens.keys()) expect(JSON.stringify(rows)).not.toContain(token)
      expect((await client.query('SELECT * FROM oauth_states')).rows).toEqual([])
    } finally {
      await client.end()
    }

    expect(await command(b, 'link')).toContain('linked as *alice*')
    expect(await command(b, 'unlink gitlab')).toMatch(/^Unlinked: GitLab ended prherald's access/)
    expect(oauth.revoked).toHaveLength(1)
    expect(await command(a, 'link')).toMatch(/^No git account of yours is linked yet\./)
  })
})
