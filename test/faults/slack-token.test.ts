import { describe, expect, it } from 'vitest'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { waitFor } from '../helpers/start-prherald.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { messagesOf } from './pr-messages.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/** 11.8: Slack refusing the token itself loses no delivery, and /healthz says so. */
const CHANNEL = 'C0000000001'
const h = usePrherald({ config: { mappings: { Codertocat: { '*': { channel: CHANNEL } } } } })

const health = async () => (await fetch(`${h.service!.url}/healthz`)).json()

describe('Slack refuses the bot token', () => {
  it.each(['invalid_auth', 'token_revoked', 'account_inactive', 'not_authed'])('%s: the delivery stays pending, health is degraded, a restart with a working token applies it', async (slackError) => {
    // Every call fails the way Slack answers a dead token.
    h.slack.channelErrors.set(CHANNEL, slackError)
    await h.start(h.env())
    expect((await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 7), deliveryId: `${slackError}-1` })).status).toBe(200)
    await waitFor('the delivery to fail', () => h.service!.entries().some((e) => e.msg === 'delivery failed; it stays pending and is retried'))

    expect(pendingDeliveries(h.dir.path)).toBe(1)
    const res = await fetch(`${h.service!.url}/healthz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'degraded', database: 'ok', slack: slackError })
    expect((await fetch(`${h.service!.url}/readyz`)).status).toBe(200) // deliveries are still stored safely
    const failed = h.service!.entries().find((e) => e.msg === 'delivery failed; it stays pending and is retried')
    expect(failed).toMatchObject({ level: 'error', error_code: 'slack_auth', error: `Slack refuses SLACK_BOT_TOKEN: ${slackError}` })
    expect(String(failed?.fix)).toMatch(/SLACK_BOT_TOKEN/)
    expect(h.service!.entries().filter((e) => String(e.msg).startsWith('Slack refuses SLACK_BOT_TOKEN'))).toHaveLength(1)
    expect(h.service!.entries().some((e) => e.msg === 'slack rejected the change; dropping it for this channel')).toBe(false)

    // The operator fixes the token and restarts: the delivery is replayed and applied.
    await h.stop()
    h.slack.channelErrors.clear()
    await h.start(h.env())
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(messagesOf(h.slack, 'Codertocat', 7)).toHaveLength(1)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
    expect(await health()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
  })

  it('goes back to ok once a Slack call succeeds again, without a restart', async () => {
    h.slack.faults.push({ method: 'chat.postMessage', fault: { error: 'invalid_auth' } })
    await h.start(h.env())
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 8), deliveryId: 'flip-1' })
    await waitFor('health to say degraded', async () => ((await health()) as { slack: string }).slack === 'invalid_auth')
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 9), deliveryId: 'flip-2' })
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(await health()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
    expect(h.service!.entries().some((e) => e.msg === 'Slack accepts SLACK_BOT_TOKEN again')).toBe(true)
  })

  it('keeps channel-level refusals as they were: logged with the fix, the delivery applied', async () => {
    h.slack.channelErrors.set(CHANNEL, 'is_archived')
    await h.start(h.env())
    await deliver(h.service!.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 10), deliveryId: 'archived-1' })
    expect(await h.service!.settle(10_000)).toBe(true)
    expect(pendingDeliveries(h.dir.path)).toBe(0)
    expect(h.service!.entries().some((e) => e.msg === 'slack rejected the change; dropping it for this channel')).toBe(true)
    expect(await health()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
  })
})
