import { describe, expect, it } from 'vitest'
import { deliver } from '../helpers/signed-delivery.ts'
import { runCliAsync } from '../helpers/run-cli-async.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { messagesOf, statusOf } from './pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * Issue 23.5: a failed batch is retried with backoff in the running server (before: only at the next start
 * or the pull request's next delivery), and one that keeps failing is parked after database.retry_attempts:
 * kept, shown by /metrics, /healthz and prherald-doctor, and replayed by prherald-migrate replay-parked.
 * Slack refusing the token (`invalid_auth`) is a failure the worker does not retry within a batch.
 */
const CHANNEL = 'C0000000001'
const h = usePrherald({
  config: {
    database: { retry_attempts: 3, retry_backoff_seconds: 1 },
    mappings: { Codertocat: { '*': { channel: CHANNEL } } },
  },
})

const opened = (n: number) => deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', n), deliveryId: `opened-${n}` })
const logged = (msg: string) => h.service!.entries().filter((e) => e.msg === msg)
const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(h.service!.metricsUrl)).text())?.[1])

describe('failed batches', () => {
  it('are retried after a backoff in the running server, without a restart or another delivery', async () => {
    h.slack.faults.push({ method: 'chat.postMessage', fault: { error: 'invalid_auth' } }, { method: 'chat.postMessage', fault: { error: 'invalid_auth' } })
    await h.start(h.env())
    expect((await opened(7)).status).toBe(200)
    await waitFor('the message to be posted by a retry', () => messagesOf(h.slack, 'Codertocat', 7).length === 1, 15_000)
    expect(logged('delivery failed; it stays pending and is retried').map((e) => e.retry_in_ms)).toEqual([1000, 2000])
    await waitFor('nothing pending', () => pendingDeliveries(h.dir.path) === 0)
  })

  it('come before a later delivery of their pull request, which does not skip reading them (issue 25), and nothing twice', async () => {
    h.slack.faults.push({ method: 'chat.postMessage', fault: { error: 'invalid_auth' } })
    await h.start(h.env())
    expect((await opened(7)).status).toBe(200)
    await waitFor('the first batch to fail', () => logged('delivery failed; it stays pending and is retried').length === 1)
    // Applied alone before the opened delivery, this would leave the message open (the opened one's facts last).
    const toDraft = pullRequest('converted_to_draft', 7, { draft: true })
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: toDraft, deliveryId: 'draft-7' })).status).toBe(200)
    await waitFor('a message', () => messagesOf(h.slack, 'Codertocat', 7).length > 0)
    await waitFor('nothing pending', () => pendingDeliveries(h.dir.path) === 0)
    // The retry of the opened delivery has had its turn (backoff 1 s), its batch run, and found nothing left to apply.
    await waitFor('the retry', () => logged('failed batch handed back for its retry').length === 1)
    expect(await h.service!.settle(5000)).toBe(true)
    const messages = messagesOf(h.slack, 'Codertocat', 7)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toMatch(/^Draft/)
  })

  it('that keep failing park their deliveries: counted, shown, kept, and replayed with one command once the cause is fixed', async () => {
    h.slack.channelErrors.set(CHANNEL, 'invalid_auth')
    await h.start(h.env())
    expect((await opened(8)).status).toBe(200)
    await waitFor('the delivery to be parked', () => logged('deliveries parked after too many failed attempts; fix the cause, then run prherald-migrate replay-parked').length === 1, 20_000)
    expect(logged('delivery failed; it stays pending and is retried')).toHaveLength(2)
    expect(logged('deliveries parked after too many failed attempts; fix the cause, then run prherald-migrate replay-parked')[0]).toMatchObject({ level: 'error', parked: 1, attempts: 3, error_code: 'slack_auth' })

    expect(await metric('prherald_parked_deliveries')).toBe(1)
    expect(await metric('prherald_pending_deliveries')).toBe(0)
    expect(await (await fetch(`${h.service!.url}/healthz`)).json()).toMatchObject({ status: 'degraded', parked_deliveries: 1 })
    const doctor = await runCliAsync('doctor', [], h.env())
    expect(doctor.stdout).toMatch(/WARN\s+parked.*1 delivery parked after too many failed attempts/)
    expect(doctor.stdout).toContain('fix: fix the cause, then run prherald-migrate replay-parked')
    // Parked, so no longer tried: no try waits for its time (and nothing is pending for a start or a sweep to take).
    expect(h.service!.holding().retries).toBe(0)

    h.slack.channelErrors.clear()
    const replay = await runCliAsync('migrate', ['replay-parked'], h.env())
    expect(replay.stderr).toBe('')
    expect(replay.stdout.trim()).toBe('1 parked delivery un-parked; the running server applies them now')
    await waitFor('the replayed delivery to be applied', () => messagesOf(h.slack, 'Codertocat', 8).length === 1, 10_000)
    expect(await h.service!.settle(5000)).toBe(true)
    await waitFor('nothing pending', () => pendingDeliveries(h.dir.path) === 0)
    expect(await metric('prherald_parked_deliveries')).toBe(0)
    expect(await (await fetch(`${h.service!.url}/healthz`)).json()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
    expect((await runCliAsync('migrate', ['replay-parked'], h.env())).stdout.trim()).toBe('no parked deliveries')
  })

  it('without a running server, replay-parked marks the rows and the next start applies them', async () => {
    h.slack.channelErrors.set(CHANNEL, 'invalid_auth')
    await h.start(h.env())
    expect((await opened(9)).status).toBe(200)
    await waitFor('the delivery to be parked', () => logged('deliveries parked after too many failed attempts; fix the cause, then run prherald-migrate replay-parked').length === 1, 20_000)
    await h.stop()
    h.slack.channelErrors.clear()
    expect((await runCliAsync('migrate', ['replay-parked'], h.env())).stdout.trim()).toBe('1 parked delivery un-parked; prherald-server applies them at its next start')
    await h.start(h.env())
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(messagesOf(h.slack, 'Codertocat', 9)).toHaveLength(1)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
  })
})
