import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { expectOneCorrectMessage, prDeliveries } from '../faults/pr-messages.ts'

/**
 * What the service holds is bounded by the work in progress: once idle, no mailbox, waiting call, timer or
 * backoff sleep is left, and the shutdown signal carries the same two listeners (the pacer's and the sleeps')
 * however many calls were made or retried.
 */
const OWNERS = ['Codertocat', 'Octocat', 'Hubot']
const CHANNELS = ['C0000000001', 'C0000000002', 'C0000000003']
let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let service: TestService | undefined

beforeEach(async () => {
  dir = makeTempDir()
  slack = await startFakeSlack()
  const mappings = Object.fromEntries(OWNERS.map((owner, i) => [owner, { '*': { channel: CHANNELS[i] } }]))
  writeConfig(dir.path, { git_provider: 'github', server: { shutdown_timeout_seconds: 1 }, mappings })
})
afterEach(async () => {
  slack.faults.length = 0
  await service?.stop()
  service = undefined
  await slack.close()
  dir.remove()
})

const IDLE = { mailboxes: 0, pacer: { queued: 0, running: 0, timer: false, budgets: 0 }, sleeps: 0, retries: 0, shutdownListeners: 2 }

async function burst(prs: number[]): Promise<void> {
  await Promise.all(OWNERS.flatMap((owner) => prs.map(async (n) => {
    for (const d of prDeliveries(owner, n)) expect((await deliver(service!.url, 'github', d)).status).toBe(200)
  })))
}

describe('an idle service holds nothing', () => {
  it('after a burst with retries: no mailbox, queued call, timer or sleep left, and still two shutdown listeners', async () => {
    // A 503 on a post leaves its outcome unknown (post-once.ts looks in the history, then posts again); on a
    // reaction it is retried: both kinds of backoff must end with nothing held.
    for (let i = 0; i < 20; i++) slack.faults.push({ method: 'chat.postMessage', fault: { status: 503 } })
    for (let i = 0; i < 20; i++) slack.faults.push({ method: 'reactions.add', fault: { status: 503 } })
    service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), { slackRetry: { retries: 0 } })
    const prs = Array.from({ length: 10 }, (_, i) => 70 + i)
    await burst(prs)
    expect(await service.settle(20_000)).toBe(true)
    for (const [i, owner] of OWNERS.entries()) for (const n of prs) expectOneCorrectMessage(slack, owner, n, CHANNELS[i]!)
    expect(service.entries().filter((e) => e.msg === 'slack post outcome unknown; looking for it in the channel before posting again')).toHaveLength(20)
    expect(service.entries().filter((e) => e.msg === 'slack call failed, retrying')).toHaveLength(20)
    expect(service.holding()).toEqual(IDLE)
  })

  it('many pull requests backing off at once add no listener to the shutdown signal (no MaxListenersExceededWarning)', async () => {
    // Every first post fails and backs off for a minute: 12 sleeps at once, more than Node's 10-listener warning.
    for (let i = 0; i < 12; i++) slack.faults.push({ method: 'chat.postMessage', fault: { status: 503 } })
    service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }), {
      slackRetry: { retries: 0 }, retry: { baseMs: 60_000, maxMs: 60_000 },
    })
    await Promise.all(Array.from({ length: 12 }, (_, i) => deliver(service!.url, 'github', prDeliveries('Codertocat', 80 + i)[0]!)))
    await waitFor('12 pull requests backing off', () => service!.holding().sleeps === 12)
    expect(service.holding().shutdownListeners).toBe(2)

    // Shutdown ends the sleeps at once (the deliveries stay pending) and takes the listeners with it.
    expect(await service.stop()).toEqual({ drained: false })
    expect(service.holding()).toMatchObject({ mailboxes: 0, sleeps: 0, shutdownListeners: 0, pacer: { queued: 0, timer: false } })
    service = undefined
  })

  it('with pacing on: once the calls are made, no timer is left waiting', async () => {
    service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url, PRHERALD_SLACK_PACING: 'published' }))
    await burst([90])
    expect(await service.settle(20_000)).toBe(true)
    for (const [i, owner] of OWNERS.entries()) expectOneCorrectMessage(slack, owner, 90, CHANNELS[i]!)
    expect(service.holding()).toMatchObject({ mailboxes: 0, pacer: { queued: 0, running: 0, timer: false }, sleeps: 0, shutdownListeners: 2 })
  })
})
