import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeSocketMode, type FakeSocketMode } from '../helpers/fake-socket-mode.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { clickPayload, reviewButton } from '../helpers/slack-interaction.ts'
import { commandForm, homeOpened } from '../helpers/slack-requests.ts'
import { waitFor } from '../helpers/start-prherald.ts'

/**
 * Issue 31.5 on the real server: with `slack.socket_mode: true`, SLACK_APP_TOKEN and no SLACK_SIGNING_SECRET,
 * the service opens the socket once its gate is open (apps.connections.open at SLACK_API_URL), and a
 * `/prherald mine`, a Start review click and an `app_home_opened` arrive over it and are answered as over HTTP;
 * the HTTP routes for Slack are not served; the socket is closed first at shutdown.
 */
const CHANNEL = 'C0000000001'
const DAVE = 'U0DAVE'
const APP_TOKEN = 'xapp-1-A0PRHERALD-1-abc'
const h = usePrherald({
  config: {
    slack: { socket_mode: true }, users: { dave: DAVE },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  },
})
let sockets: FakeSocketMode

beforeEach(async () => {
  sockets = await startFakeSocketMode()
  h.slack.socketUrl = sockets.socketUrl
  h.slack.users.set(DAVE, { tz: 'UTC' })
  h.slack.scopes.push('users:read')
  await h.start(h.env({ SLACK_APP_TOKEN: APP_TOKEN }))
  await waitFor('the socket', () => sockets.connections.length === 1)
})
afterEach(async () => {
  await h.stop()
  await sockets.close()
})

it('takes /prherald mine, a Start review click and app_home_opened over the socket, and serves no Slack HTTP route', async () => {
  expect(h.slack.calls.filter((c) => c.method === 'apps.connections.open').map((c) => c.headers.authorization)).toEqual([`Bearer ${APP_TOKEN}`])
  const ready = await (await fetch(`${h.service!.url}/readyz`)).json() as Record<string, unknown>
  expect(ready).toMatchObject({ status: 'ready', slack_socket: 'open' })

  const res = await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 7) })
  expect(res.status).toBe(200)
  expect(await h.service!.settle(10_000)).toBe(true)
  const [message] = h.slack.messagesIn(CHANNEL)
  // The button is offered: its click can arrive over the socket.
  expect(reviewButton(message!)).toMatchObject({ value: 'github:Codertocat/Hello-World#7' })

  const click = clickPayload({ user: DAVE, value: 'github:Codertocat/Hello-World#7', channel: CHANNEL, messageTs: message!.ts })
  expect(await sockets.envelope('interactive', click, 'env-click')).toEqual({ envelope_id: 'env-click' })
  expect(await h.service!.settle(10_000)).toBe(true)
  expect(JSON.stringify(h.slack.messagesIn(CHANNEL)[0]!.blocks)).toContain(`:eyes: <@${DAVE}> reviewing`)

  const origin = new URL(h.slack.url).origin
  const command = Object.fromEntries(new URLSearchParams(commandForm(DAVE, 'mine', { trigger_id: 'trigger-1', response_url: `${origin}/commands/T0ACME/1/answer` })))
  expect(await sockets.envelope('slash_commands', command, 'env-command')).toMatchObject({ envelope_id: 'env-command', payload: { response_type: 'ephemeral' } })
  await waitFor('the answer at the response_url', () => h.slack.calls.some((c) => c.method === 'commands/T0ACME/1/answer'))

  expect(await sockets.envelope('events_api', JSON.parse(homeOpened(DAVE, 'Ev-socket')) as unknown, 'env-event')).toEqual({ envelope_id: 'env-event' })
  await waitFor('the home tab', () => h.slack.views.has(DAVE))

  // Slack's retry of the click on a new envelope is acknowledged and not acted on again.
  const updates = h.slack.count('chat.update')
  await sockets.envelope('interactive', click, 'env-click-retry')
  expect(await h.service!.settle(10_000)).toBe(true)
  expect(h.slack.count('chat.update')).toBe(updates)

  // Without a signing secret, Slack's HTTP routes are not served.
  expect((await fetch(`${h.service!.url}/webhook/slack/commands`, { method: 'POST', body: 'x=1' })).status).toBe(404)
})

it('closes the socket first at shutdown', async () => {
  const connection = sockets.connections[0]!
  await h.stop()
  expect(connection.closed).toBe(true)
})
