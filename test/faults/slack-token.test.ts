import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { messagesOf } from './pr-messages.ts'

/** 11.8: Slack refusing the token itself loses no delivery, and /healthz says so. */
const CHANNEL = 'C0000000001'
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  writeConfig(dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
})
afterEach(async () => {
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

const env = () => testEnv(dir.path, 'github', { SLACK_API_URL: slack.url })
const health = async () => (await fetch(`${service!.url}/healthz`)).json()

describe('Slack refuses the bot token', () => {
  it.each(['invalid_auth', 'token_revoked', 'account_inactive', 'not_authed'])('%s: the delivery stays pending, health is degraded, a restart with a working token applies it', async (slackError) => {
    // Every call fails the way Slack answers a dead token.
    slack.channelErrors.set(CHANNEL, slackError)
    service = await startPrherald(dir.path, env())
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 7), deliveryId: `${slackError}-1` })).status).toBe(200)
    await waitFor('the delivery to fail', () => service!.entries().some((e) => e.msg === 'delivery failed; it stays pending and is retried'))

    expect(pendingDeliveries(dir.path)).toBe(1)
    const res = await fetch(`${service.url}/healthz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'degraded', database: 'ok', slack: slackError })
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200) // deliveries are still stored safely
    const failed = service.entries().find((e) => e.msg === 'delivery failed; it stays pending and is retried')
    expect(failed).toMatchObject({ level: 'error', error_code: 'slack_auth', error: `Slack refuses SLACK_BOT_TOKEN: ${slackError}` })
    expect(String(failed?.fix)).toMatch(/SLACK_BOT_TOKEN/)
    expect(service.entries().filter((e) => String(e.msg).startsWith('Slack refuses SLACK_BOT_TOKEN'))).toHaveLength(1)
    expect(service.entries().some((e) => e.msg === 'slack rejected the change; dropping it for this channel')).toBe(false)

    // The operator fixes the token and restarts: the delivery is replayed and applied.
    await service.stop()
    slack.channelErrors.clear()
    service = await startPrherald(dir.path, env())
    expect(await service.settle(10_000)).toBe(true)
    expect(messagesOf(slack, 'Codertocat', 7)).toHaveLength(1)
    expect(pendingDeliveries(dir.path)).toBe(0)
    expect(await health()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
  })

  it('goes back to ok once a Slack call succeeds again, without a restart', async () => {
    slack.faults.push({ method: 'chat.postMessage', fault: { error: 'invalid_auth' } })
    service = await startPrherald(dir.path, env())
    await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 8), deliveryId: 'flip-1' })
    await waitFor('health to say degraded', async () => ((await health()) as { slack: string }).slack === 'invalid_auth')
    await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 9), deliveryId: 'flip-2' })
    expect(await service.settle(10_000)).toBe(true)
    expect(await health()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
    expect(service.entries().some((e) => e.msg === 'Slack accepts SLACK_BOT_TOKEN again')).toBe(true)
  })

  it('keeps channel-level refusals as they were: logged with the fix, the delivery applied', async () => {
    slack.channelErrors.set(CHANNEL, 'is_archived')
    service = await startPrherald(dir.path, env())
    await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 10), deliveryId: 'archived-1' })
    expect(await service.settle(10_000)).toBe(true)
    expect(pendingDeliveries(dir.path)).toBe(0)
    expect(service.entries().some((e) => e.msg === 'slack rejected the change; dropping it for this channel')).toBe(true)
    expect(await health()).toEqual({ status: 'ok', database: 'ok', slack: 'ok' })
  })
})
