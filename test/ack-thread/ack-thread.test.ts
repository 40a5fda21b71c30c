import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/log/logger.ts'
import { loadSettings } from '../../src/config/load-config.ts'
import { openStore } from '../../src/store/open-store.ts'
import { freePort } from '../helpers/free-port.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { createTestDatabase } from '../helpers/postgres.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'
import { deliver, signedDelivery } from '../helpers/signed-delivery.ts'
import { clickStartReview, TEST_SLACK_SIGNING_SECRET } from '../helpers/slack-interaction.ts'
import { commandForm, sendSignedSlack } from '../helpers/slack-requests.ts'
import { startPrherald, waitFor, writeConfig } from '../helpers/start-prherald.ts'

/**
 * `server.ack_thread: true`: the webhook listener and the intake on a thread of their own, everything else on
 * the main thread. The real service on 127.0.0.1, a real SQLite file (and PostgreSQL once), signed deliveries,
 * the fake Slack.
 */
const CHANNEL = 'C0000000001'
const mappings = { Codertocat: { 'Hello-World': { channel: CHANNEL } } }
const h = usePrherald({ config: { server: { ack_thread: true, shutdown_timeout_seconds: 1 }, mappings } })

async function send(event: string, payload: unknown, deliveryId?: string): Promise<unknown> {
  const res = await deliver(h.service!.url, 'github', { event, payload, ...(deliveryId ? { deliveryId } : {}) })
  expect(res.status).toBe(200)
  return res.json()
}

/**
 * Sends one signed delivery from a thread of the test's own, so that it goes out while this thread (the
 * service's main thread, in-process) is busy: `acked` turns 1 the moment its answer arrives.
 */
async function senderThread(url: string, delivery: { body: string; headers: Record<string, string> }) {
  const shared = new Int32Array(new SharedArrayBuffer(12))
  const sender = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads')
    const { shared, url, delivery } = workerData
    parentPort.postMessage('ready')
    Atomics.wait(shared, 0, 0)
    fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body }).then((res) => {
      Atomics.store(shared, 2, res.status)
      Atomics.store(shared, 1, 1)
    }, () => Atomics.store(shared, 1, 2))
  `, { eval: true, workerData: { shared, url, delivery } })
  await new Promise((resolve) => sender.once('message', resolve))
  return {
    /** Lets the delivery go, then keeps this thread busy (no turn of its event loop) until it is answered or `blockMs` passed. */
    sendWhileBlocked(blockMs: number): { answeredWhileBlocked: boolean; status: number } {
      Atomics.store(shared, 0, 1)
      Atomics.notify(shared, 0)
      const until = Date.now() + blockMs
      while (Atomics.load(shared, 1) === 0 && Date.now() < until) { /* busy: the main event loop runs nothing */ }
      return { answeredWhileBlocked: Atomics.load(shared, 1) === 1, status: Atomics.load(shared, 2) }
    },
    answered: () => Atomics.load(shared, 1) === 1,
    end: () => sender.terminate(),
  }
}

describe('the acknowledging thread', () => {
  it('acknowledges deliveries that the main thread makes into one message per pull request, opened, edited, merged; a repeated delivery id is a duplicate', async () => {
    await h.start()
    expect(h.service!.server).toBeUndefined()
    expect(await send('pull_request', pullRequest('opened', 7, { title: 'Add rate limiting' }), 'd-opened')).toEqual({ status: 'accepted' })
    await send('pull_request', pullRequest('edited', 7, { title: 'Add rate limiting to the API' }))
    await send('pull_request', pullRequest('closed', 7, { title: 'Add rate limiting to the API', merged: true }))
    expect(await h.service!.settle(10_000)).toBe(true)
    const messages = h.slack.messagesIn(CHANNEL)
    expect(messages).toHaveLength(1)
    expect(messages[0]!.text).toContain('Add rate limiting to the API')
    expect(h.slack.count('chat.postMessage')).toBe(1)
    expect([...messages[0]!.reactions]).toContain('twisted_rightwards_arrows')
    // The same delivery id again: a duplicate, said by the thread's intake from the store.
    expect(await send('pull_request', pullRequest('opened', 7, { title: 'Add rate limiting' }), 'd-opened')).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'listening', acknowledging: 'own thread' }))
  })

  it('answers /readyz, /metrics and unknown routes through the main thread, and /metrics counts the thread\'s deliveries', async () => {
    await h.start()
    const ready = await fetch(`${h.service!.url}/readyz`)
    expect(ready.status).toBe(200)
    await send('pull_request', pullRequest('opened', 8))
    await send('pull_request', pullRequest('opened', 9))
    const refused = await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 10), secret: 'not-the-secret' })
    expect(refused.status).toBe(401)
    const metrics = await (await fetch(h.service!.metricsUrl)).text()
    expect(metrics).toContain('prherald_deliveries_total{provider="github",result="accepted",reason=""} 2')
    expect(metrics).toContain('prherald_deliveries_total{provider="github",result="rejected",reason="bad_signature"} 1')
    // The thread's log lines are written by the service's logger: the refusal is there, without the signature.
    expect(h.service!.entries()).toContainEqual(expect.objectContaining({ msg: 'rejected webhook delivery', reason: 'bad_signature', provider: 'github' }))
    const missing = await fetch(`${h.service!.url}/no-such-route`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: 'not_found' })
    // A webhook route answers another method 405 on the thread, as on the one event loop.
    expect((await fetch(`${h.service!.url}/webhook/github`)).status).toBe(405)
  })

  it('answers Slack\'s requests through the forwarded path: /prherald and a "Start review" click', async () => {
    await h.start(h.env({ SLACK_SIGNING_SECRET: TEST_SLACK_SIGNING_SECRET }))
    await send('pull_request', pullRequest('opened', 11))
    expect(await h.service!.settle(10_000)).toBe(true)
    const command = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm('U0000ALICE', 'help'))
    expect(command.status).toBe(200)
    expect(((await command.json()) as { text: string }).text).toContain('/prherald')
    const [message] = h.slack.messagesIn(CHANNEL)
    const click = await clickStartReview(h.service!.url, message!, 'U0000ALICE')
    expect(click.status).toBe(200)
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(JSON.stringify(h.slack.messagesIn(CHANNEL)[0]!.blocks)).toMatch(/:eyes: [^"]*reviewing/)
    // A request Slack did not sign is refused on the main thread, as before.
    const unsigned = await sendSignedSlack(h.service!.url, '/webhook/slack/commands', commandForm('U0000ALICE', 'help'), { secret: 'not-the-secret' })
    expect(unsigned.status).toBe(401)
    // A body over 1 MiB is refused by the thread before anything is forwarded.
    const huge = await fetch(`${h.service!.url}/webhook/slack/commands`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x'.repeat(1024 * 1024 + 1) })
    expect(huge.status).toBe(413)
  })

  it('answers deliveries and /readyz 503 until the start-up steps are done, then takes them', async () => {
    // A post the last run left with an unknown outcome: the start looks for it in Slack before it is ready.
    const settings = loadSettings(h.env(), h.dir.path)
    const opened = await openStore({ settings, logger: createLogger({ format: 'json', level: 'error', write: () => {} }), lockConnections: 1 })
    await opened.store.recordPostIntent({
      provider: 'github', repository: 'Codertocat/Hello-World', prNumber: 99, channel: CHANNEL, marker: 'd-0', mentions: [],
      state: 'unannounced', lifecycle: { state: 'unannounced' } as never, lastDeliveryId: null, reactions: [], createdAt: Date.now(),
    })
    await opened.close()
    let release!: () => void
    h.slack.faults.push({ method: 'conversations.history', fault: { until: new Promise<void>((resolve) => { release = resolve }) } })
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const starting = h.start(h.env({ PRHERALD_LISTEN: `127.0.0.1:${port}` }))
    await waitFor('the lookup of the interrupted post', () => h.slack.calls.some((c) => c.method === 'conversations.history'))

    expect((await fetch(`${url}/readyz`)).status).toBe(503)
    const early = await deliver(url, 'github', { event: 'pull_request', payload: pullRequest('opened', 12), deliveryId: 'early-1' })
    expect(early.status).toBe(503)
    expect(early.headers.get('retry-after')).toBe('5')
    release()
    await starting
    expect((await fetch(`${url}/readyz`)).status).toBe(200)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
    expect((await deliver(url, 'github', { event: 'pull_request', payload: pullRequest('opened', 12), deliveryId: 'early-1' })).status).toBe(200)
  })

  it('acknowledges a delivery while the main event loop is blocked, and the main thread applies it once free', async () => {
    await h.start()
    const sender = await senderThread(`${h.service!.url}/webhook/github`, signedDelivery('github', { event: 'pull_request', payload: pullRequest('opened', 13) }))
    try {
      // No turn of the main event loop until the answer arrived (or 5 s): only another thread can have answered it.
      const { answeredWhileBlocked, status } = sender.sendWhileBlocked(5000)
      expect(answeredWhileBlocked).toBe(true)
      expect(status).toBe(200)
      expect(await h.service!.settle(10_000)).toBe(true)
      expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
    } finally {
      await sender.end()
    }
  })

  it('without the setting, the same delivery is answered only after the main event loop is free again', async () => {
    writeConfig(h.dir.path, { git_provider: 'github', mappings })
    await h.start()
    const sender = await senderThread(`${h.service!.url}/webhook/github`, signedDelivery('github', { event: 'pull_request', payload: pullRequest('opened', 14) }))
    try {
      expect(sender.sendWhileBlocked(1000).answeredWhileBlocked).toBe(false)
      await waitFor('the answer once the loop is free', () => sender.answered())
    } finally {
      await sender.end()
    }
  })

  it('a stop drains: every delivery the thread acknowledged is applied, by this run or, when Slack held it past the window, by the next', async () => {
    const { url } = await h.start()
    let release!: () => void
    h.slack.faults.push({ method: 'chat.postMessage', fault: { until: new Promise<void>((resolve) => { release = resolve }) } })
    for (const n of [21, 22, 23]) await send('pull_request', pullRequest('opened', n))
    await waitFor('the first post to reach Slack', () => h.slack.calls.some((c) => c.method === 'chat.postMessage'))
    const stopped = await h.stop()
    expect(stopped).toEqual({ drained: false })
    expect(pendingDeliveries(h.dir.path)).toBeGreaterThan(0)
    // Nothing listens any more: the thread's listener closed first.
    await expect(deliver(url, 'github', { event: 'pull_request', payload: pullRequest('opened', 24) })).rejects.toThrow()
    release()
    await h.start()
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
    for (const n of [21, 22, 23]) {
      expect(h.slack.messagesIn(CHANNEL).filter((m) => JSON.stringify(m.blocks).includes(`/pull/${n}`))).toHaveLength(1)
    }
  })

  it('a thread that ends on its own stops the whole service, with one error line, and asks the process to exit', async () => {
    let worker: Worker | undefined
    let failed = false
    await h.start(undefined, { onAckThread: (w) => { worker = w }, onFailure: () => { failed = true } })
    const { url } = h.service!
    await send('pull_request', pullRequest('opened', 31))
    await worker!.terminate()
    await waitFor('the service to stop itself', () => failed)
    const entries = h.service!.entries()
    expect(entries).toContainEqual(expect.objectContaining({ level: 'error', msg: 'the acknowledging thread ended; prherald stops, and the supervisor restarts it' }))
    expect(entries.filter((e) => e.msg === 'stopped')).toHaveLength(1)
    // Half-alive is not an option: nothing answers on the port. What was acknowledged is stored: the next start applies it.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow()
    await h.stop()
    await h.start()
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(1)
  })
})

describe('the acknowledging thread on PostgreSQL', () => {
  it('acknowledges into the PostgreSQL database and the main thread makes one message of opened and edited', async () => {
    const database = await createTestDatabase()
    h.onCleanup(() => database.drop())
    const service = await startPrherald(h.dir.path, h.env({ PRHERALD_DATABASE_URL: database.url }))
    h.service = service
    await send('pull_request', pullRequest('opened', 41, { title: 'First title' }))
    await send('pull_request', pullRequest('edited', 41, { title: 'Second title' }))
    expect(await send('pull_request', pullRequest('edited', 41, { title: 'Third title' }), 'pg-dup')).toEqual({ status: 'accepted' })
    expect(await send('pull_request', pullRequest('edited', 41, { title: 'Third title' }), 'pg-dup')).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
    expect(await service.settle(10_000)).toBe(true)
    const messages = h.slack.messagesIn(CHANNEL)
    expect(messages).toHaveLength(1)
    expect(messages[0]!.text).toContain('Third title')
  })
})
