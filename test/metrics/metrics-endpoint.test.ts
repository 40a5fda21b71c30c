import { describe, expect, it } from 'vitest'
import { githubExample } from '../helpers/github-examples.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { parseExposition, sampleValue, type Sample } from './parse-exposition.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * `/metrics` scraped from the real server after real signed deliveries, with Slack faked over HTTP: the counts
 * must be what the test sent and what the fake Slack saw, and no label may carry a pull request or repository.
 */
const CHANNEL = 'C0000000001'
// Numbers no default metric prints, so a label carrying one would be found.
const PRS = [4101, 4102, 4103, 4104]

const h = usePrherald({ slack: { anyChannel: true } })

async function start(server: Record<string, unknown> = {}): Promise<TestService> {
  writeConfig(h.dir.path, { git_provider: 'github', server, mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
  await h.start(h.env())
  return h.service!
}

async function scrape(url = h.service!.metricsUrl): Promise<Sample[]> {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  return parseExposition(await res.text())
}

describe('GET /metrics after a burst of deliveries', () => {
  it('counts deliveries by result and reason, Slack calls by method and outcome (a 429 included), and labels nothing from a delivery', async () => {
    await start()
    // The first post is refused with a 429; the pacer holds the channel for Retry-After and posts it again.
    h.slack.faults.push({ method: 'chat.postMessage', fault: { status: 429, headers: { 'retry-after': '1' } } })
    const sent = PRS.map((n) => ({ event: 'pull_request', payload: pullRequest('opened', n), deliveryId: `open-${n}` }))
    for (const d of sent) expect((await deliver(h.service!.url, 'github', d)).status).toBe(200)
    expect((await deliver(h.service!.url, 'github', sent[0]!)).status).toBe(200) // the host redelivers one
    expect((await deliver(h.service!.url, 'github', { event: 'ping', payload: githubExample('ping') })).status).toBe(200)
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('assigned', PRS[1]!) })).status).toBe(200)
    const forged = await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 4199), secret: 'not-the-secret' })
    expect(forged.status).toBe(401)
    const bad = await fetch(`${h.service!.url}/webhook/github`, { method: 'POST', headers: { 'x-github-event': 'pull_request' }, body: 'x'.repeat(10) })
    expect(bad.status).toBe(401)
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: '{"not json' })).status).toBe(400)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(PRS.length)

    const samples = await scrape()
    const deliveries = (result: string, reason = '') => sampleValue(samples, 'prherald_deliveries_total', { provider: 'github', result, reason })
    expect(deliveries('accepted')).toBe(PRS.length)
    expect(deliveries('duplicate')).toBe(1)
    expect(deliveries('ignored', 'ping')).toBe(1)
    expect(deliveries('ignored', 'unsupported_action')).toBe(1)
    expect(deliveries('rejected', 'bad_signature')).toBe(2)
    expect(deliveries('rejected', 'bad_request')).toBe(1)
    expect(sampleValue(samples, 'prherald_deliveries_total', {})).toBe(PRS.length + 6)
    // Every answer timed, by result.
    expect(sampleValue(samples, 'prherald_delivery_ack_seconds_count', { result: 'accepted' })).toBe(PRS.length)
    expect(sampleValue(samples, 'prherald_delivery_ack_seconds_count', {})).toBe(PRS.length + 6)
    expect(sampleValue(samples, 'prherald_delivery_ack_seconds_bucket', { result: 'rejected', le: '+Inf' })).toBe(3)

    // One count per call the fake Slack answered, by method: the 429 and the post made after it are two.
    expect(sampleValue(samples, 'prherald_slack_calls_total', { method: 'chat.postMessage', outcome: 'rate_limited' })).toBe(1)
    expect(sampleValue(samples, 'prherald_slack_calls_total', { method: 'chat.postMessage', outcome: 'ok' })).toBe(PRS.length)
    const methods = new Set(h.slack.calls.map((c) => c.method))
    for (const method of methods) expect(sampleValue(samples, 'prherald_slack_calls_total', { method }), method).toBe(h.slack.count(method))
    expect(sampleValue(samples, 'prherald_slack_calls_total', { outcome: 'rate_limited' })).toBe(1)

    // Settled: nothing queued, no mailbox, nothing pending.
    for (const name of ['prherald_queued_deliveries', 'prherald_active_mailboxes', 'prherald_pending_deliveries', 'prherald_oldest_pending_delivery_age_seconds']) {
      expect(sampleValue(samples, name, {}), name).toBe(0)
    }
    expect(sampleValue(samples, 'prherald_digest_runs_total', { result: 'posted' })).toBe(0)
    // prom-client's process metrics, on this service's registry.
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true)
    expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds')).toBe(true)

    // Bounded labels only: nothing from a delivery (number, repository, owner, delivery id) in any label.
    const ours = samples.filter((s) => s.name.startsWith('prherald_'))
    // The socket's series exist only with slack.socket_mode (test/inbound/socket-and-http.test.ts).
    expect(ours.filter((s) => s.name.startsWith('prherald_slack_socket_'))).toEqual([])
    expect(new Set(ours.flatMap((s) => Object.keys(s.labels)))).toEqual(new Set(['provider', 'result', 'reason', 'method', 'outcome', 'le']))
    for (const s of samples) {
      for (const value of Object.values(s.labels)) {
        expect(value, `${s.name} ${JSON.stringify(s.labels)}`).not.toMatch(/41\d\d|Hello-World|Codertocat|open-|C0000000001/)
      }
    }
  })

  it('shows a delivery held in Slack as queued, in an active mailbox and pending in the store, with the age of the oldest', async () => {
    await start()
    let release!: () => void
    h.slack.faults.push({ method: 'chat.postMessage', fault: { until: new Promise<void>((resolve) => { release = resolve }) } })
    const sentAt = Date.now()
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', PRS[0]!) })).status).toBe(200)
    const acknowledgedAt = Date.now()
    await waitFor('the post to reach Slack', () => h.slack.count('chat.postMessage') === 1)
    // The delivery was stored before its 200, so it is at least this old at the scrape.
    await waitFor('50 ms to pass', () => Date.now() - acknowledgedAt >= 50)

    const held = await scrape()
    expect(sampleValue(held, 'prherald_queued_deliveries', {})).toBe(1)
    expect(sampleValue(held, 'prherald_active_mailboxes', {})).toBe(1)
    expect(sampleValue(held, 'prherald_pending_deliveries', {})).toBe(1)
    const age = sampleValue(held, 'prherald_oldest_pending_delivery_age_seconds', {})
    expect(age).toBeGreaterThanOrEqual(0.05)
    expect(age).toBeLessThanOrEqual((Date.now() - sentAt) / 1000)

    release()
    expect(await h.service!.settle(10_000)).toBe(true)
    const done = await scrape()
    expect(sampleValue(done, 'prherald_pending_deliveries', {})).toBe(0)
    expect(sampleValue(done, 'prherald_oldest_pending_delivery_age_seconds', {})).toBe(0)
    expect(sampleValue(done, 'prherald_slack_calls_total', { method: 'chat.postMessage', outcome: 'ok' })).toBe(1)
  })

  it('answers other methods on /metrics with 405 and Allow', async () => {
    await start()
    const res = await fetch(`${h.service!.url}/metrics`, { method: 'POST', body: '' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD')
  })
})

describe('server.metrics_listen', () => {
  it('serves /metrics on its own listener only, and closes it on stop', async () => {
    await start({ metrics_listen: '127.0.0.1:0' })
    const metricsUrl = new URL(h.service!.metricsUrl)
    expect(metricsUrl.port).not.toBe(String(h.service!.port))
    expect((await fetch(`${h.service!.url}/metrics`)).status).toBe(404)
    expect((await deliver(h.service!.url, 'github', { event: 'ping', payload: githubExample('ping') })).status).toBe(200)

    const samples = await scrape()
    expect(sampleValue(samples, 'prherald_deliveries_total', { result: 'ignored', reason: 'ping' })).toBe(1)
    // Only /metrics lives there: not the webhook, not the health routes.
    expect((await fetch(`${metricsUrl.origin}/healthz`)).status).toBe(404)
    expect((await fetch(`${metricsUrl.origin}/webhook/github`, { method: 'POST', body: '{}' })).status).toBe(404)
    const post = await fetch(h.service!.metricsUrl, { method: 'POST', body: '' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
    expect(h.service!.entries().find((e) => e.msg === 'serving /metrics on its own listener')).toMatchObject({ port: Number(metricsUrl.port) })

    await h.stop()
    await expect(fetch(metricsUrl)).rejects.toThrow()
  })

  it('a metrics address already taken stops the start with a fix, and frees the webhook port and the database', async () => {
    const first = await start({ metrics_listen: '127.0.0.1:0' })
    const taken = new URL(first.metricsUrl).port
    const otherDir = makeTempDir()
    try {
      writeConfig(otherDir.path, { git_provider: 'github', server: { metrics_listen: `127.0.0.1:${taken}` }, mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
      const env = testEnv(otherDir.path, 'github', { SLACK_API_URL: h.slack.url })
      await expect(startPrherald(otherDir.path, env)).rejects.toMatchObject({
        code: 'config_invalid', message: expect.stringContaining(`server.metrics_listen: cannot listen on 127.0.0.1:${taken} (EADDRINUSE)`),
        fix: expect.stringContaining('choose a free port'),
      })
      // The failed start released its database lock: a start on the same file now works.
      writeConfig(otherDir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
      const second = await startPrherald(otherDir.path, env)
      await second.stop()
    } finally {
      otherDir.remove()
    }
  })
})
