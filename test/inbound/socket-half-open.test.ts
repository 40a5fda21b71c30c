import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeSocketMode, type FakeSocketMode } from '../helpers/fake-socket-mode.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { commandForm } from '../helpers/slack-requests.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { parseExposition, sampleValue } from '../metrics/parse-exposition.ts'

/**
 * Issue 31.5, a half-open socket on the real server: Slack's end goes silent without closing the TCP
 * connection, so the socket still looks open to the client while nothing can arrive on it. Slack's pings
 * stopping (or prherald's going unanswered) show it: the server cuts the socket, says why in one line,
 * reconnects with its backoff, /metrics shows it down and then the reconnect, and /prherald works again.
 */
const DAVE = 'U0DAVE'
const APP_TOKEN = 'xapp-1-A0PRHERALD-1-abc'
const h = usePrherald({ config: { slack: { socket_mode: true }, users: { dave: DAVE }, mappings: { Codertocat: { '*': { channel: 'C0000000001' } } } } })
let sockets: FakeSocketMode

beforeEach(async () => {
  // Slack pings each socket it holds; here every 50 ms, against watches of 1 s (30 s and 5 s by default).
  sockets = await startFakeSocketMode({ pingEveryMs: 50 })
  h.slack.socketUrl = sockets.socketUrl
  h.slack.users.set(DAVE, { tz: 'UTC' })
  await h.start(h.env({ SLACK_APP_TOKEN: APP_TOKEN }), {
    socketTimeouts: { backoffMs: () => 20, helloMs: 200, liveness: { serverPingMs: 1000, pingEveryMs: 200, pongMs: 1000 } },
  })
  await waitFor('the socket', () => sockets.connections.length === 1)
})
afterEach(async () => {
  await h.stop()
  await sockets.close()
})

const scrape = async () => parseExposition(await (await fetch(h.service!.metricsUrl)).text())
const readyz = async () => (await (await fetch(`${h.service!.url}/readyz`)).json()) as Record<string, unknown>

it('finds a half-open socket by its pings, cuts it, reconnects, and answers /prherald over the new socket', async () => {
  await waitFor('the socket open', async () => (await readyz()).slack_socket === 'open')
  // Alive while pinged and answering pings: kept past the watch's timeouts (1000 ms), as its own pings, one
  // every 200 ms and each answered, show.
  await waitFor('the watch to ping past its timeouts', () => sockets.connections[0]!.pings >= 7, 5000)
  expect(sampleValue(await scrape(), 'prherald_slack_socket_reconnects_total', {})).toBe(0)
  expect(sockets.connections).toHaveLength(1)

  // Slack's end goes deaf, and new sockets get no hello for now: the socket is down until one does.
  sockets.silent = true
  sockets.connections[0]!.halfOpen()
  const deaf = () => h.service!.entries().filter((e) => e.msg === 'slack socket is deaf (half-open): cut it; reconnecting')
  await waitFor('the deaf socket found', () => deaf().length === 1, 5000)
  expect(deaf()[0]).toMatchObject({ level: 'warn', reason: expect.stringMatching(/^(nothing heard from Slack \(no ping\) for 1000 ms|no pong from Slack within 1000 ms)$/) })
  expect(sampleValue(await scrape(), 'prherald_slack_socket_connected', {})).toBe(0)
  expect(await readyz()).toMatchObject({ status: 'ready', slack_socket: 'reconnecting' })

  sockets.silent = false
  await waitFor('the new socket', () => h.service!.entries().filter((e) => e.msg === 'slack socket open').length === 2)
  const samples = await scrape()
  expect(sampleValue(samples, 'prherald_slack_socket_connected', {})).toBe(1)
  expect(sampleValue(samples, 'prherald_slack_socket_reconnects_total', {})).toBe(1)
  expect(sockets.connections.filter((c) => !c.closed)).toHaveLength(1)

  const origin = new URL(h.slack.url).origin
  const command = Object.fromEntries(new URLSearchParams(commandForm(DAVE, 'mine', { trigger_id: 'trigger-after', response_url: `${origin}/commands/T0ACME/2/answer` })))
  expect(await sockets.envelope('slash_commands', command, 'env-after')).toMatchObject({ envelope_id: 'env-after', payload: { response_type: 'ephemeral' } })
  expect(sockets.connections.at(-1)!.acks.map((a) => a.envelope_id)).toEqual(['env-after'])
  await waitFor('the answer at the response_url', () => h.slack.calls.some((c) => c.method === 'commands/T0ACME/2/answer'))
  // One line says why; the drop is not reported a second time as a plain close.
  expect(h.service!.entries().filter((e) => e.msg === 'slack socket closed; reconnecting')).toEqual([])
})
