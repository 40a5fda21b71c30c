import { afterEach, beforeEach, expect, it } from 'vitest'
import { connectHosts } from '../../src/config/connect-hosts.ts'
import { loadSettings } from '../../src/config/load-config.ts'
import { createClickIntake } from '../../src/intake/accept-click.ts'
import { createLogger } from '../../src/log/logger.ts'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import type { Personal } from '../../src/personal/create-personal.ts'
import { createPersonDirectory } from '../../src/personal/person-directory.ts'
import { personalRoutes } from '../../src/personal/personal-routes.ts'
import { createSlackClient } from '../../src/slack/slack-client.ts'
import { createSlackPacer } from '../../src/slack/slack-pacer.ts'
import { DEFAULT_RETRY } from '../../src/slack/retry-transient.ts'
import { createShutdownSleep } from '../../src/slack/shutdown-sleep.ts'
import type { SlackSocket } from '../../src/inbound/slack-socket.ts'
import { startSocketMode } from '../../src/inbound/start-socket-mode.ts'
import { createSlackInbound } from '../../src/inbound/slack-inbound.ts'
import { createTokenWorkspace } from '../../src/slack/token-workspace.ts'
import { openStore, type OpenedStore } from '../../src/store/open-store.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { startFakeSocketMode, type FakeSocketMode } from '../helpers/fake-socket-mode.ts'
import { clickPayload } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened } from '../helpers/slack-requests.ts'
import { TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { testEnv, waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 31.5, "Done when": `/prherald mine`, a Start review click and an `app_home_opened` event arrive over
 * Socket Mode (a fake Socket Mode server on 127.0.0.1) and go through the same pipeline and handlers as the
 * HTTP routes, on a real SQLite store with the fake Slack: answered as over HTTP, each acknowledged once its
 * request id is committed, and a retried envelope is acknowledged without acting again.
 */
const DAVE = 'U0DAVE'
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let sockets: FakeSocketMode
let opened: OpenedStore
let socket: SlackSocket
const handedOff: LifecycleEvent[] = []
const lines: string[] = []
const shutdown = new AbortController()

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack({ anyChannel: true })
  sockets = await startFakeSocketMode()
  slack.users.set(DAVE, { tz: 'UTC' })
  slack.scopes.push('users:read')
  writeConfig(dir.path, {
    git_provider: 'github', slack: { socket_mode: true }, users: { dave: DAVE, Codertocat: 'U0AUTHOR' },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  })
  const settings = loadSettings(testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), dir.path)
  const logger = createLogger({ format: 'json', level: 'debug', write: (line) => lines.push(line) })
  opened = await openStore({ settings, logger, lockConnections: 1 })
  const { store } = opened
  // What the service builds for Slack's requests, from the same factories (src/service.ts, personalRoutes).
  const pacer = createSlackPacer({ pacing: 'off', parallel: 4, signal: shutdown.signal })
  const client = createSlackClient({ token: TEST_SLACK_TOKEN, apiUrl: slack.url, logger })
  const people = createPersonDirectory({ settings: settings.directMessages, store, slack: client, pacer, logger })
  const personal = { people, queue: undefined, sendDue: async () => {}, now: Date.now } as unknown as Personal
  const routes = personalRoutes({
    settings, hosts: connectHosts(settings.hosts, {}), personal, slack: client, store, pacer, logger, retry: DEFAULT_RETRY, sleep: createShutdownSleep(shutdown.signal),
  })
  const receive = createSlackInbound({
    ...routes, logger, workspace: createTokenWorkspace({ token: TEST_SLACK_TOKEN, apiUrl: slack.url, logger }),
    click: createClickIntake({ providers: ['github'], store, logger, handOff: (event) => handedOff.push(event) }),
  })
  // apps.connections.open at SLACK_API_URL, like every Slack call; the fake Slack names the fake socket server.
  slack.socketUrl = sockets.socketUrl
  socket = (await startSocketMode({ settings, secrets: { slackAppToken: 'xapp-1-A0PRHERALD-1-abc' }, receive, logger }))!
  await waitFor('the socket', () => socket.state() === 'open')
})
afterEach(async () => {
  await socket.stop()
  shutdown.abort()
  await opened.close()
  await sockets.close()
  await slack.close()
  dir.remove()
})

// A merged pull request's row: the click finds its message, /prherald mine lists nothing (its answer is still sent).
it('answers /prherald mine, a Start review click and app_home_opened over the socket as over HTTP, each once', async () => {
  expect(slack.calls.filter((c) => c.method === 'apps.connections.open').map((c) => c.headers.authorization)).toEqual(['Bearer xapp-1-A0PRHERALD-1-abc'])
  await opened.store.saveMessage({
    provider: 'github', repository: 'Codertocat/Hello-World', prNumber: 9, channel: CHANNEL, ts: '1700000000.000100',
    mentions: [], state: 'merged', lifecycle: {} as never, lastDeliveryId: 'd1', reactions: [],
  })
  const origin = new URL(slack.url).origin
  const command = Object.fromEntries(new URLSearchParams(commandForm(DAVE, 'mine', { trigger_id: 'trigger-1', response_url: `${origin}/commands/T0ACME/1/answer` })))
  expect(await sockets.envelope('slash_commands', command, 'env-command')).toEqual({ envelope_id: 'env-command', payload: { response_type: 'ephemeral', text: 'Looking…' } })
  await waitFor('the answer at the response_url', () => slack.calls.some((c) => c.method === 'commands/T0ACME/1/answer'))

  const click = clickPayload({ user: DAVE, value: 'github:Codertocat/Hello-World#9', channel: CHANNEL, messageTs: '1700000000.000100' })
  expect(await sockets.envelope('interactive', click, 'env-click')).toEqual({ envelope_id: 'env-click' })
  expect(handedOff).toMatchObject([{ kind: 'review_click', user: DAVE, number: 9 }])
  expect((await opened.store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual([`slack:${String(click.trigger_id)}`])

  const event = JSON.parse(homeOpened(DAVE, 'Ev-socket')) as unknown
  expect(await sockets.envelope('events_api', event, 'env-event')).toEqual({ envelope_id: 'env-event' })
  await waitFor('the home tab', () => slack.views.has(DAVE))

  // prherald's own events (its bot's message, the message_changed of its own chat.update) are dropped before anything is stored.
  const own = (eventId: string, inner: Record<string, unknown>) => ({ type: 'event_callback', team_id: 'T0ACME', api_app_id: 'A0PRHERALD', event_id: eventId, event: inner })
  await sockets.envelope('events_api', own('Ev-bot', { type: 'message', subtype: 'bot_message', bot_id: 'B123' }), 'env-bot')
  await sockets.envelope('events_api', own('Ev-changed', { type: 'message', subtype: 'message_changed', message: { bot_id: 'B123' } }), 'env-changed')
  expect(await opened.store.claimSlackRequest('event:Ev-bot')).toBe(true)
  expect(await opened.store.claimSlackRequest('event:Ev-changed')).toBe(true)

  // Slack's retries of the three (new envelope ids, the same requests) are acknowledged and not acted on again.
  // Each is decided before its acknowledgement: the command's carries no answer (not run), and an event that
  // starts a publish has logged it by then.
  expect(await sockets.envelope('slash_commands', command, 'env-command-retry')).toEqual({ envelope_id: 'env-command-retry' })
  expect(await sockets.envelope('interactive', click, 'env-click-retry')).toEqual({ envelope_id: 'env-click-retry' })
  expect(await sockets.envelope('events_api', event, 'env-event-retry')).toEqual({ envelope_id: 'env-event-retry' })
  expect(lines.filter((l) => l.includes('"msg":"home tab publish started"'))).toHaveLength(1)
  expect(slack.calls.filter((c) => c.method === 'commands/T0ACME/1/answer')).toHaveLength(1)
  expect(handedOff).toHaveLength(1)
  expect(slack.count('views.publish')).toBe(1)
  expect(lines.filter((l) => l.includes('"level":"error"') || l.includes('"level":"warn"'))).toEqual([])
})
