import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { LifecycleEvent } from '../../machines/lifecycle-event.ts'
import { createKnownPending } from '../../src/mailbox/known-pending.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { pendingDeliveries } from '../helpers/pending-deliveries.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { messagesOf, statusOf } from '../faults/pr-messages.ts'

/**
 * Issue 25, the processing path: on SQLite a batch of deliveries an intake has just committed is applied
 * without reading them back, but only while nothing else of the pull request can be pending.
 */
const event = (deliveryId: string) => ({ deliveryId }) as LifecycleEvent
const PR = 'github:Codertocat/Hello-World#7'

describe('known pending deliveries', () => {
  it('a batch of fresh deliveries is known; the same events handed back (a retry) are not', () => {
    const known = createKnownPending()
    const a = event('a')
    const b = event('b')
    known.fresh(a)
    known.fresh(b)
    expect(known.take(PR, [a, b])).toEqual([a, b])
    expect(known.take(PR, [a, b])).toBeUndefined()
  })

  it('one delivery not handed over by an intake (a replay, a reconcile) makes its batch read the store', () => {
    const known = createKnownPending()
    const a = event('a')
    known.fresh(a)
    expect(known.take(PR, [a, event('replayed')])).toBeUndefined()
  })

  it('after a failed batch, or a replay at start, the pull request reads until a read finds only its own batch', () => {
    const known = createKnownPending()
    known.unsure(PR)
    const b = event('b')
    known.fresh(b)
    expect(known.take(PR, [b])).toBeUndefined()
    // The read found the failed delivery too: it may still come back (the retry), so still unsure.
    known.applied(PR, [b], ['a', 'b'])
    const c = event('c')
    known.fresh(c)
    expect(known.take(PR, [c])).toBeUndefined()
    // This read found nothing outside its batch: known again, and other pull requests were never affected.
    known.applied(PR, [c], ['c'])
    const d = event('d')
    known.fresh(d)
    expect(known.take(PR, [d])).toEqual([d])
    const other = event('e')
    known.fresh(other)
    expect(known.take('github:Codertocat/Hello-World#8', [other])).toEqual([other])
  })
})

describe('a fresh delivery while an earlier one of its pull request waits for its retry', () => {
  let dir: ReturnType<typeof makeTempDir>
  let slack: FakeSlack
  let service: TestService | undefined
  beforeEach(async () => {
    dir = makeTempDir()
    slack = await startFakeSlack()
    writeConfig(dir.path, {
      git_provider: 'github', database: { retry_attempts: 5, retry_backoff_seconds: 1 },
      mappings: { Codertocat: { '*': { channel: 'C0000000001' } } },
    })
  })
  afterEach(async () => {
    await service?.stop()
    service = undefined
    await slack.close()
    dir.remove()
  })

  it('is applied after it, in one message, and the retry applies nothing twice', async () => {
    slack.faults.push({ method: 'chat.postMessage', fault: { error: 'invalid_auth' } })
    service = await startPrherald(dir.path, testEnv(dir.path, 'github', { SLACK_API_URL: slack.url }))
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 7), deliveryId: 'opened-7' })).status).toBe(200)
    await waitFor('the first batch to fail', () => service!.entries().some((e) => e.msg === 'delivery failed; it stays pending and is retried'))
    // Applied alone before the opened delivery, this would leave the message open (the opened one's facts last).
    const toDraft = pullRequest('converted_to_draft', 7, { draft: true })
    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: toDraft, deliveryId: 'draft-7' })).status).toBe(200)
    await waitFor('a message', () => messagesOf(slack, 'Codertocat', 7).length > 0)
    await waitFor('nothing pending', () => pendingDeliveries(dir.path) === 0)
    // The retry of the opened delivery has had its turn (backoff 1 s) and found nothing left to apply.
    await new Promise((r) => setTimeout(r, 1500))
    const messages = messagesOf(slack, 'Codertocat', 7)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toMatch(/^Draft/)
  })
})
