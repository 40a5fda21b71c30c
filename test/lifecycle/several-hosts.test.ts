import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { loadSettings } from '../../src/config/load-config.ts'
import { runDigest } from '../../src/digest/run-digest.ts'
import { createLogger } from '../../src/log/logger.ts'
import { hostMappings } from '../../src/routing/resolve-route.ts'
import { createSlackClient } from '../../src/slack/slack-client.ts'
import { createOutbox } from '../../src/slack/outbox.ts'
import { DEFAULT_RETRY } from '../../src/slack/retry-transient.ts'
import { createShutdownSleep } from '../../src/slack/shutdown-sleep.ts'
import { createSlackPacer } from '../../src/slack/slack-pacer.ts'
import { openStore } from '../../src/store/open-store.ts'
import { digestIn } from '../digest/digest-e2e-helpers.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { grantPersonalScopes } from '../helpers/personal-setup.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'
import { deliver, TEST_SECRET, TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, testEnv, waitFor, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { bitbucketHost, githubHost, gitlabHost, type ScenarioHost, type Step } from './host-scenario-hosts.ts'

/**
 * Issue 34's scenario table: GitHub, GitLab and Bitbucket deliveries into one server at once (one SQLite
 * file), and into two replicas on one PostgreSQL database, each delivery to the next replica in turn.
 */
const GITHUB_CHANNEL = 'C0000000020'
const BITBUCKET_CHANNEL = 'C0000000021'
const GITLAB_CHANNEL = 'C0000000022'
const ALICE = 'U0ALICE'

/** The owner `acme` is on GitLab and on Bitbucket, and means two channels; GitLab's acme/shared posts beside GitHub's repository. */
const CONFIG = {
  hosts: {
    github: { mappings: { Codertocat: { 'Hello-World': { channel: GITHUB_CHANNEL } } }, users: { alice: ALICE } },
    gitlab: { mappings: { acme: { api: { channel: GITLAB_CHANNEL }, shared: { channel: GITHUB_CHANNEL } } }, users: { alice: ALICE } },
    bitbucket: { mappings: { acme: { api: { channel: BITBUCKET_CHANNEL } } } },
  },
  slack: { thread_updates: false },
}

let database: TestDatabase | undefined
beforeAll(async () => { database = await createTestDatabase() })
afterAll(async () => { await database?.drop() })

const BACKENDS = [
  { name: 'one SQLite file, one server', replicas: 1, databaseEnv: async () => ({ env: {}, drop: async () => {} }) },
  {
    name: 'PostgreSQL, two replicas', replicas: 2,
    databaseEnv: async () => {
      const schema = await createTestSchema(database!)
      return { env: { PRHERALD_DATABASE_URL: schema.url }, drop: () => schema.drop() }
    },
  },
]

describe.each(BACKENDS)('GitHub, GitLab and Bitbucket in one deployment ($name)', ({ replicas, databaseEnv }) => {
  let dir: ReturnType<typeof makeTempDir>
  let slack: FakeSlack
  let drop: () => Promise<void>
  let env: Record<string, string | undefined>
  let servers: TestService[] = []
  let turn = 0

  beforeEach(async () => {
    dir = makeTempDir()
    slack = await startFakeSlack({ anyChannel: true })
    grantPersonalScopes(slack)
    slack.users.set(ALICE, { tz: 'UTC' })
    writeFileSync(join(dir.path, 'config.yaml'), stringify(CONFIG))
    const db = await databaseEnv()
    drop = db.drop
    env = testEnv(dir.path, 'github', {
      SLACK_API_URL: slack.url, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET,
      GITLAB_WEBHOOK_SECRET: TEST_SECRET, BITBUCKET_WEBHOOK_SECRET: TEST_SECRET, ...db.env,
    })
    servers = []
    for (let i = 0; i < replicas; i++) servers.push(await startPrherald(dir.path, env))
  })
  afterEach(async () => {
    for (const server of servers) await server.stop()
    await slack.close()
    await drop()
    dir.remove()
  })

  /** Each delivery to the next server in turn, acknowledged, and applied before the next. */
  async function send(h: ScenarioHost, step: Step): Promise<void> {
    const server = servers[turn++ % servers.length]!
    const res = await deliver(server.url, h.id, { event: step.event, payload: step.payload })
    expect(res.status, `${h.id} ${step.event}`).toBe(200)
    expect(await res.json()).toEqual({ status: 'accepted' })
    for (const s of servers) expect(await s.settle(10_000)).toBe(true)
  }
  const texts = (channel: string) => slack.messagesIn(channel).map((m) => m.text)

  it('serves a route per host, and each host\'s pull requests get their own message in their own channel', async () => {
    for (const h of [githubHost, gitlabHost, bitbucketHost]) await send(h, h.open(7))
    // The same owner, acme, on GitLab and on Bitbucket: two channels, one message each.
    expect(texts(GITHUB_CHANNEL)).toEqual([expect.stringContaining('PR #7: ')])
    expect(texts(GITLAB_CHANNEL)).toEqual([expect.stringContaining('MR !7: ')])
    expect(texts(BITBUCKET_CHANNEL)).toEqual([expect.stringContaining('PR #7: ')])
    // Each host's later event updates its own message only, never another host's #7.
    for (const h of [githubHost, gitlabHost, bitbucketHost]) await send(h, h.approve(7, 'alice'))
    for (const channel of [GITHUB_CHANNEL, GITLAB_CHANNEL, BITBUCKET_CHANNEL]) {
      expect(slack.messagesIn(channel), channel).toHaveLength(1)
      expect(texts(channel)[0], channel).toContain('Approved by alice')
    }
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(3)
    // /metrics labels deliveries by host: two accepted for each, across the servers.
    for (const provider of ['github', 'gitlab', 'bitbucket']) {
      let accepted = 0
      for (const server of servers) {
        const text = await (await fetch(server.metricsUrl)).text()
        const line = new RegExp(`^prherald_deliveries_total\\{provider="${provider}",result="accepted",reason=""\\} (\\d+)$`, 'm').exec(text)
        expect(line, `${provider} on ${server.metricsUrl}`).not.toBeNull()
        accepted += Number(line![1])
      }
      expect(accepted, provider).toBe(2)
    }
    // The start-up log names every host and its route.
    expect(servers[0]!.entries()).toContainEqual(expect.objectContaining({
      msg: 'listening', hosts: ['github', 'bitbucket', 'gitlab'], routes: ['/webhook/github', '/webhook/bitbucket', '/webhook/gitlab'],
    }))
  })

  it('a person mapped on two hosts sees both hosts\' review requests in /prherald mine and on the Home tab', async () => {
    await send(githubHost, githubHost.requestReview(8, 'alice'))
    await send(gitlabHost, gitlabHost.requestReview(8, 'alice'))
    const responseUrl = `${new URL(slack.url).origin}/commands/T0ACME/1/mine`
    const res = await sendSignedSlack(servers[0]!.url, '/webhook/slack/commands', commandForm(ALICE, 'mine', { response_url: responseUrl }))
    expect(res.status).toBe(200)
    await waitFor('the late answer', () => slack.calls.some((c) => c.method.startsWith('commands/')))
    const answer = slack.calls.find((c) => c.method.startsWith('commands/'))!.body as { text: string }
    const waiting = answer.text.split('*Your pull requests*')[0]!
    expect(waiting).toContain('https://github.com/Codertocat/Hello-World/pull/8')
    expect(waiting).toContain('https://gitlab.example.com/acme/api/-/merge_requests/8')

    // The Home tab gathers them the same way.
    const event = await sendSignedSlack(servers[servers.length - 1]!.url, '/webhook/slack/events', homeOpened(ALICE, 'Ev1'))
    expect(event.status).toBe(200)
    await waitFor('the home tab', () => slack.views.has(ALICE))
    const home = JSON.stringify(slack.views.get(ALICE)!.blocks)
    expect(home).toContain('https://github.com/Codertocat/Hello-World/pull/8')
    expect(home).toContain('https://gitlab.example.com/acme/api/-/merge_requests/8')
  })

  it('one digest message lists both hosts\' pull requests of a channel', async () => {
    await send(githubHost, githubHost.open(9))
    await send(gitlabHost, { event: 'Merge Request Hook', payload: mergeRequestHook('open', { iid: 9, project: 'acme/shared' }) })
    expect(slack.messagesIn(GITHUB_CHANNEL)).toHaveLength(2)
    for (const server of servers.splice(0)) await server.stop()

    const settings = loadSettings(env, dir.path)
    const logger = createLogger({ format: 'json', level: 'error', write: () => {} })
    const opened = await openStore({ settings, logger, lockConnections: 2, env })
    const abort = new AbortController()
    try {
      const result = await runDigest({
        store: opened.store, logger, mappings: hostMappings(settings.hosts), digest: settings.digest,
        outbox: createOutbox({
          store: opened.store, logger, retry: DEFAULT_RETRY, sleep: createShutdownSleep(abort.signal), settleMs: 2000,
          slack: createSlackClient({ token: TEST_SLACK_TOKEN, apiUrl: settings.api.slack, logger, retry: { retries: 0 } }),
        }),
        pacer: createSlackPacer({ pacing: 'off', parallel: 2, signal: abort.signal }),
      }, { at: Date.parse('2030-01-09T09:00:00Z'), dryRun: false })
      expect(result.failedChannels).toBe(0)
    } finally {
      abort.abort()
      await opened.close()
    }
    const { parents, replies } = digestIn(slack, GITHUB_CHANNEL)
    expect(parents).toHaveLength(1)
    const listed = [parents[0]!.text, ...replies.map((r) => r.text)].join('\n')
    expect(listed).toContain('PR #9: ')
    expect(listed).toContain('MR !9: ')
  })
})
