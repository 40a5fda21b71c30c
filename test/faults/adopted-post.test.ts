import { afterEach, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { useDirAndSlack } from '../helpers/dir-and-slack.ts'
import { deliver } from '../helpers/signed-delivery.ts'
import { startPrherald, testEnv, waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { pullRequest, review } from '../helpers/github-payloads.ts'
import { messagesOf, statusOf } from './pr-messages.ts'

/**
 * A batch posts, then cannot save the post's ts (the database went away: a PostgreSQL restart or
 * pg_terminate_backend in test/replicas/database-drops.test.ts, a SQLite write lock here). Its post intent
 * stays, and the pull request's next batch, which folds more deliveries, finds that post in the channel and
 * adopts it. The post shows the first batch's state: the next batch must bring it to its own, not only add
 * its reactions (before the fix the message stayed `Open` under a ✅, for good).
 */
const CHANNEL = 'C0000000001'
const t = useDirAndSlack()
let service: TestService | undefined
let holder: Database.Database | undefined

afterEach(async () => {
  if (holder?.inTransaction) holder.exec('ROLLBACK')
  holder?.close()
  holder = undefined
  await service?.stop()
  service = undefined
})

describe('a post whose ts could not be saved, adopted by the next batch', () => {
  it('is updated to the next batch\'s state, not left showing the first one\'s', async () => {
    writeConfig(t.dir.path, { git_provider: 'github', mappings: { Codertocat: { '*': { channel: CHANNEL } } } })
    service = await startPrherald(t.dir.path, testEnv(t.dir.path, 'github', { SLACK_API_URL: t.slack.url }), { databaseLockWaitMs: 200 })
    let release!: () => void
    t.slack.faults.push({ method: 'chat.postMessage', fault: { until: new Promise<void>((r) => { release = r }) } })

    expect((await deliver(service.url, 'github', { event: 'pull_request', payload: pullRequest('opened', 7), deliveryId: 'opened-7' })).status).toBe(200)
    await waitFor('the post to reach Slack', () => t.slack.count('chat.postMessage') === 1)
    // Another program takes the write lock while the post is on its way: the batch cannot save the ts.
    holder = new Database(join(t.dir.path, 'prherald.db'))
    holder.exec('BEGIN IMMEDIATE')
    release()
    await waitFor('the batch to fail', () => service!.entries().some((e) => e.msg === 'delivery failed; it stays pending and is retried'))
    holder.exec('ROLLBACK')

    expect((await deliver(service.url, 'github', { event: 'pull_request_review', payload: review('approved', 7, 'carol'), deliveryId: 'approved-7' })).status).toBe(200)
    await waitFor('the approval applied', async () => (await service!.settle(100)) && t.slack.count('reactions.add') === 1)
    const messages = messagesOf(t.slack, 'Codertocat', 7)
    expect(messages).toHaveLength(1)
    expect(statusOf(messages[0]!)).toBe('Approved by carol')
    expect([...messages[0]!.reactions]).toEqual(['white_check_mark'])
    expect(t.slack.count('chat.postMessage')).toBe(1)
    expect(service.entries()).toContainEqual(expect.objectContaining({ msg: 'slack message found in the channel history; adopting it instead of posting again', earlier_batch: true }))
  })
})
