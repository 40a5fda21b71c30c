import { afterEach, describe, expect, it } from 'vitest'
import { connect, type Socket } from 'node:net'
import { createSlackBodyLane, SLACK_BODY_BYTES } from '../../src/http/slack-body-lane.ts'
import { holdBodies, type HeldBodies } from '../helpers/held-bodies.ts'
import { TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { sendSignedSlack } from '../helpers/slack-requests.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { useGithubService } from '../helpers/use-github-service.ts'
import { parseExposition, sampleValue } from '../metrics/parse-exposition.ts'

/**
 * Issue 30.2: held, unsigned bodies on Slack's routes took about 1 MiB of memory each, without bound. They are
 * now bounded by a lane that cuts the oldest held body to make room (counted), and Slack's own small signed
 * requests are still answered at once; the listener keeps a bounded number of connections.
 */
const withSlack = () => ({ SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET })
const floods: HeldBodies[] = []
const sockets: Socket[] = []
afterEach(() => {
  for (const flood of floods.splice(0)) flood.leave()
  for (const socket of sockets.splice(0)) socket.destroy()
})

describe('a flood of held, unsigned bodies on Slack\'s routes', () => {
  const lane = createSlackBodyLane()
  const t = useGithubService(withSlack, { overrides: { slackBodyLane: lane } })

  it('holds at most the lane\'s bytes, cuts the oldest held bodies (counted), and answers Slack\'s signed requests while the flood is held', async () => {
    const port = t.service.port
    const flood = await Promise.all([
      holdBodies({ port, path: '/webhook/slack/interactions', count: 40, declared: 1024 * 1024, sent: 64 * 1024 }),
      holdBodies({ port, path: '/webhook/slack/commands', count: 100, declared: 64 * 1024, sent: 32 * 1024 }),
      holdBodies({ port, path: '/webhook/slack/events', count: 100, declared: 64 * 1024, sent: 32 * 1024 }),
    ])
    floods.push(...flood)
    // 40 MiB + 12.5 MiB declared against a 4 MiB lane: most are cut as newer ones arrive.
    await waitFor('held bodies cut', () => lane.cut >= 150, 5_000)
    expect(lane.peak).toBeLessThanOrEqual(SLACK_BODY_BYTES)
    expect(lane.used).toBeLessThanOrEqual(SLACK_BODY_BYTES)

    // Slack's own requests are answered while the flood is still held (it never leaves by itself): they do not
    // wait for room behind it. How fast is bench/ work (npm run bench:slack-flood), not a test's.
    const command = await sendSignedSlack(t.service.url, '/webhook/slack/commands', 'ssl_check=1&token=legacy')
    const challenge = await sendSignedSlack(t.service.url, '/webhook/slack/events', JSON.stringify({ type: 'url_verification', challenge: 'abc' }))
    const interaction = await sendSignedSlack(t.service.url, '/webhook/slack/interactions', `payload=${encodeURIComponent(JSON.stringify({ type: 'view_closed' }))}`)
    expect([command.status, challenge.status, interaction.status]).toEqual([200, 200, 200])
    expect(lane.used).toBeGreaterThan(0)
    expect(lane.peak).toBeLessThanOrEqual(SLACK_BODY_BYTES)
    const samples = parseExposition(await (await fetch(t.service.metricsUrl)).text())
    expect(sampleValue(samples, 'prherald_slack_bodies_cut_total', {})).toBe(lane.cut)
  }, 20_000)

})

describe('the listener\'s connection limit', () => {
  const t = useGithubService(withSlack, { overrides: { maxConnections: 20 } })

  it('closes connections beyond the listener\'s limit, with one log line however many are dropped', async () => {
    const port = t.service.port
    let closed = 0
    await Promise.all(Array.from({ length: 40 }, () => new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve())
      socket.on('error', () => resolve())
      socket.on('close', () => { closed += 1 })
      sockets.push(socket)
    })))
    // Every connection beyond the 20 has been dropped by the listener before the log is read.
    await waitFor('the 20 over the limit closed', () => closed >= 20, 3_000)
    expect(closed).toBe(20)
    expect(t.service.entries().filter((e) => e.msg?.toString().startsWith('connection limit reached'))).toEqual([
      expect.objectContaining({ level: 'warn', max_connections: 20 }),
    ])
    for (const socket of sockets.splice(0)) socket.destroy()
    await waitFor('room again', async () => (await fetch(`${t.service.url}/healthz`).catch(() => undefined))?.status === 200, 3_000)
  }, 20_000)
})
