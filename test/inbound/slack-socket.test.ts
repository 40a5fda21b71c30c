import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { healthz, readyz } from '../../src/http/health-routes.ts'
import { createLogger } from '../../src/log/logger.ts'
import type { SlackInboundRequest } from '../../src/inbound/slack-inbound.ts'
import { startSlackSocket, type SlackSocket } from '../../src/inbound/slack-socket.ts'
import type { SocketLiveness } from '../../src/inbound/socket-liveness.ts'
import { startFakeSocketMode, type FakeSocketMode } from '../helpers/fake-socket-mode.ts'

let slack: FakeSocketMode
let socket: SlackSocket | undefined
let lines: Array<Record<string, unknown>>
const received: SlackInboundRequest[] = []

beforeEach(async () => {
  slack = await startFakeSocketMode()
  lines = []
  received.length = 0
})
afterEach(async () => {
  await socket?.stop()
  socket = undefined
  await slack.close()
})

function start(options: { token?: string; receive?: (e: SlackInboundRequest) => Promise<unknown>; liveness?: SocketLiveness } = {}) {
  socket = startSlackSocket({
    appToken: options.token ?? 'xapp-1-A1-test', apiUrl: slack.apiUrl, backoffMs: () => 20, helloMs: 200, liveness: options.liveness,
    logger: createLogger({ format: 'json', level: 'debug', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }),
    receive: options.receive ?? (async (envelope) => { received.push(envelope); return envelope.kind === 'command' ? { text: 'ok' } : undefined }),
  })
  return socket
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(check()).toBe(true)
}

it('asks apps.connections.open with the app token, opens the socket it names, and acknowledges each envelope once received, with its answer', async () => {
  const s = start()
  await slack.waitForConnections(1)
  await until(() => s.state() === 'open')
  expect(slack.opens).toEqual(['xapp-1-A1-test'])
  expect(await slack.envelope('slash_commands', { command: '/prherald' }, 'e1')).toEqual({ envelope_id: 'e1', payload: { text: 'ok' } })
  expect(await slack.envelope('events_api', { event_id: 'Ev1' }, 'e2')).toEqual({ envelope_id: 'e2' })
  expect(received.map((e) => e.kind)).toEqual(['command', 'event'])
  expect(received[0]!.kind === 'command' && received[0]!.form.get('command')).toBe('/prherald')
})

it('leaves an envelope the pipeline could not take unacknowledged, so that Slack sends it again', async () => {
  const s = start({ receive: async () => { throw new Error('database is gone') } })
  await until(() => s.state() === 'open')
  await expect(slack.envelope('interactive', {}, 'e1', 500)).rejects.toThrow('no ack')
  expect(lines.some((l) => l.msg === 'slack socket envelope not taken; Slack sends it again')).toBe(true)
})

it('on a refresh, opens the new socket before closing the old one, and takes envelopes on the new one', async () => {
  const s = start()
  await slack.waitForConnections(1)
  await until(() => s.state() === 'open')
  slack.connections[0]!.disconnect('refresh_requested')
  await slack.waitForConnections(2)
  // The old socket is still open while the new one is being opened.
  expect(slack.connections[0]!.closed).toBe(false)
  await until(() => slack.connections[0]!.closed)
  expect(s.state()).toBe('open')
  expect(await slack.envelope('interactive', { type: 'block_actions' }, 'e3')).toEqual({ envelope_id: 'e3' })
  expect(slack.connections[1]!.acks).toEqual([{ envelope_id: 'e3' }])
})

it('reconnects a dropped socket with backoff, and through a failed apps.connections.open', async () => {
  const s = start()
  await until(() => s.state() === 'open')
  slack.openErrors.push('internal_error')
  slack.connections[0]!.drop()
  await until(() => s.state() === 'reconnecting')
  await slack.waitForConnections(2)
  await until(() => s.state() === 'open')
  expect(slack.opens).toHaveLength(3)
  expect(lines.some((l) => l.msg === 'slack socket could not connect; retrying' && String(l.error).includes('internal_error'))).toBe(true)
  expect(await slack.envelope('events_api', {}, 'e4')).toEqual({ envelope_id: 'e4' })
})

it('stops during a reconnection without opening another socket or throwing', async () => {
  const s = start()
  await until(() => s.state() === 'open')
  let release = () => {}
  slack.holdOpen = new Promise<void>((r) => { release = r })
  slack.connections[0]!.drop()
  await until(() => slack.opens.length === 2)
  await s.stop()
  expect(s.state()).toBe('closed')
  release()
  // The open answered after the stop: the client drops the URL it got.
  await until(() => lines.some((l) => l.msg === 'slack socket not opened: the client was stopped meanwhile'))
  expect(slack.connections).toHaveLength(1)
})

it('says clearly when Slack refuses another socket (too_many_websockets), and when the token is not an app-level token', async () => {
  const s = start()
  await until(() => s.state() === 'open')
  slack.connections[0]!.disconnect('too_many_websockets')
  await until(() => lines.some((l) => String(l.msg).includes('too_many_websockets')))
  await s.stop()
  start({ token: 'xoxb-bot' })
  await until(() => lines.some((l) => String(l.fix).includes('app-level token (xapp-')))
})

it('shows its state in /healthz and /readyz: degraded while it reconnects, never a failed probe', async () => {
  const s = start()
  await until(() => s.state() === 'open')
  const sources = { database: () => 'ok' as const, slack: () => 'ok', socket: s.state }
  const body = (response: { body?: unknown }) => JSON.parse(String(response.body)) as Record<string, unknown>
  expect(body(healthz(sources))).toMatchObject({ status: 'ok', slack_socket: 'open' })
  let release = () => {}
  slack.holdOpen = new Promise<void>((r) => { release = r })
  slack.connections[0]!.drop()
  await until(() => s.state() === 'reconnecting')
  expect(healthz(sources).status).toBe(200)
  expect(body(healthz(sources))).toMatchObject({ status: 'degraded', slack_socket: 'reconnecting' })
  expect(body(readyz(sources))).toMatchObject({ status: 'ready', slack_socket: 'reconnecting' })
  release()
  await until(() => s.state() === 'open')
})

it('closes a socket that never says hello and tries again, rather than waiting on it for ever', async () => {
  slack.silent = true
  const s = start()
  await slack.waitForConnections(1)
  await until(() => slack.connections[0]!.closed)
  expect(s.state()).toBe('connecting')
  slack.silent = false
  await until(() => s.state() === 'open')
  expect(slack.connections.length).toBeGreaterThanOrEqual(2)
})

describe('a deaf (half-open) socket', () => {
  const deafLine = () => lines.find((l) => l.msg === 'slack socket is deaf (half-open): cut it; reconnecting')

  it('keeps a socket Slack pings and that answers its pings, past every timeout', async () => {
    await slack.close()
    slack = await startFakeSocketMode({ pingEveryMs: 50 })
    const s = start({ liveness: { serverPingMs: 600, pingEveryMs: 100, pongMs: 500 } })
    await until(() => s.state() === 'open')
    // Its own pings, one every 100 ms and each answered, until the watch has run twice past every timeout (600 ms).
    await until(() => slack.connections[0]!.pings >= 12)
    expect(slack.connections[0]!.pings).toBeGreaterThan(3)
    expect([s.state(), s.reconnects(), slack.connections.length, deafLine()]).toEqual(['open', 0, 1, undefined])
  })

  it('cuts a socket Slack stopped pinging, says why, and takes envelopes on the new one', async () => {
    await slack.close()
    slack = await startFakeSocketMode({ pingEveryMs: 50 })
    // Its own pings far apart: only Slack's silence can find it.
    const s = start({ liveness: { serverPingMs: 300, pingEveryMs: 60_000 } })
    await until(() => s.state() === 'open')
    slack.connections[0]!.halfOpen()
    await until(() => s.state() === 'reconnecting')
    expect(deafLine()).toMatchObject({ level: 'warn', reason: 'nothing heard from Slack (no ping) for 300 ms' })
    await until(() => s.state() === 'open')
    expect([s.reconnects(), slack.connections.length]).toEqual([1, 2])
    expect(await slack.envelope('events_api', {}, 'e5')).toEqual({ envelope_id: 'e5' })
  })

  it('cuts a socket whose pong does not come, though Slack never pings', async () => {
    const s = start({ liveness: { serverPingMs: 60_000, pingEveryMs: 50, pongMs: 200 } })
    await until(() => s.state() === 'open')
    await until(() => slack.connections[0]!.pings > 0)
    slack.connections[0]!.halfOpen()
    await until(() => s.state() === 'reconnecting')
    expect(deafLine()).toMatchObject({ reason: 'no pong from Slack within 200 ms' })
    await until(() => s.state() === 'open')
    expect(s.reconnects()).toBe(1)
  })

  it('stops at once with a deaf socket, not after a close frame that never comes', async () => {
    const s = start()
    await until(() => s.state() === 'open')
    slack.connections[0]!.halfOpen()
    // ws waits 30 s for the close frame's answer; the cut comes after 1 s. A stop that waited for ws would
    // outlast this test's own 10 s timeout and fail it.
    await s.stop()
    expect(s.state()).toBe('closed')
  }, 10_000)
})
