import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeSocketMode, type FakeSocketMode } from '../helpers/fake-socket-mode.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, sendSignedSlack } from '../helpers/slack-requests.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { parseExposition, sampleValue } from '../metrics/parse-exposition.ts'

/**
 * One server with both receivers (issue 31.4, 31.5): Slack's HTTP routes (SLACK_SIGNING_SECRET) and Socket
 * Mode hand their requests to the one inbound pipeline built in src/service.ts. A command taken over HTTP is
 * not acted on again when Slack sends it over the socket; and the socket's state is in /metrics.
 */
const DAVE = 'U0DAVE'
const APP_TOKEN = 'xapp-1-A0PRHERALD-1-abc'
const h = usePrherald({ config: { slack: { socket_mode: true }, users: { dave: DAVE }, mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } } })
let sockets: FakeSocketMode

beforeEach(async () => {
  sockets = await startFakeSocketMode()
  h.slack.socketUrl = sockets.socketUrl
  h.slack.users.set(DAVE, { tz: 'UTC' })
  await h.start(h.env({ SLACK_APP_TOKEN: APP_TOKEN, SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET }))
  await waitFor('the socket', () => sockets.connections.length === 1)
})
afterEach(async () => {
  await h.stop()
  await sockets.close()
})

const scrape = async () => parseExposition(await (await fetch(h.service!.metricsUrl)).text())

it('acts once on a command taken over HTTP and sent again over the socket', async () => {
  const origin = new URL(h.slack.url).origin
  const form = commandForm(DAVE, 'mine', { trigger_id: 'trigger-both', response_url: `${origin}/commands/T0ACME/1/answer` })
  const res = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', form)
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ response_type: 'ephemeral', text: 'Looking…' })
  await waitFor('the answer at the response_url', () => h.slack.calls.some((c) => c.method === 'commands/T0ACME/1/answer'))

  // Acknowledged (Slack would send it again otherwise), with nothing to say: already taken. The acknowledgement
  // comes once that is decided; run, the command would have carried its answer in it.
  expect(await sockets.envelope('slash_commands', Object.fromEntries(new URLSearchParams(form)), 'env-again')).toEqual({ envelope_id: 'env-again' })
  expect(h.slack.calls.filter((c) => c.method === 'commands/T0ACME/1/answer')).toHaveLength(1)
  expect(h.service!.entries().filter((e) => e.msg === 'ignored slack command').map((e) => e.reason)).toEqual(['already_taken'])
})

it('shows in /metrics whether the socket is open and how often it was opened again', async () => {
  let samples = await scrape()
  expect(sampleValue(samples, 'prherald_slack_socket_connected', {})).toBe(1)
  expect(sampleValue(samples, 'prherald_slack_socket_reconnects_total', {})).toBe(0)

  // A refresh Slack asks for: the new socket is opened before the old one is closed.
  sockets.connections[0]!.disconnect('refresh_requested')
  await waitFor('the new socket', () => sockets.connections.length === 2 && h.service!.entries().filter((e) => e.msg === 'slack socket open').length === 2)
  expect(sampleValue(await scrape(), 'prherald_slack_socket_reconnects_total', {})).toBe(1)

  // A dropped socket while Slack does not answer apps.connections.open yet: not connected until it does.
  let answer = () => {}
  sockets.holdOpen = new Promise<void>((resolve) => (answer = resolve))
  sockets.connections[1]!.drop()
  await waitFor('the drop seen', () => h.service!.entries().some((e) => e.msg === 'slack socket closed; reconnecting'))
  samples = await scrape()
  expect(sampleValue(samples, 'prherald_slack_socket_connected', {})).toBe(0)
  answer()
  await waitFor('the third socket', () => h.service!.entries().filter((e) => e.msg === 'slack socket open').length === 3)
  samples = await scrape()
  expect(sampleValue(samples, 'prherald_slack_socket_connected', {})).toBe(1)
  expect(sampleValue(samples, 'prherald_slack_socket_reconnects_total', {})).toBe(2)
})
