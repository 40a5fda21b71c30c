import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { pullRequestIntents, recoverIntents } from '../../src/worker/recover-intents.ts'
import type { Outbox } from '../../src/slack/outbox.ts'
import { createShutdownSleep } from '../../src/slack/shutdown-sleep.ts'
import { createSlackPacer } from '../../src/slack/slack-pacer.ts'
import { createLogger } from '../../src/log/logger.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool } from '../../src/store/postgres-pool.ts'
import { createPostgresStore } from '../../src/store/postgres-store.ts'
import type { MessageRecord, PostIntent, Store } from '../../src/store/store.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'

/**
 * A replica starting while another is in the middle of a post: the post intent it finds at start-up is the
 * live replica's, not a dead one's. It must wait for that pull request's lock, and then leave alone what
 * the live replica settled, instead of adopting the post with the state from before its deliveries.
 */

let database: TestDatabase
let schema: TestDatabase
const stores: Store[] = []
beforeAll(async () => { database = await createTestDatabase() })
afterAll(() => database.drop())
beforeEach(async () => { schema = await createTestSchema(database) })
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()))
  await schema.drop()
})

async function replica(): Promise<Store> {
  const pool = await openPostgresPool({ url: schema.url, onIdleError: () => {} })
  await postgresMigrateUp(pool)
  const store = createPostgresStore({ pool, lockPool: await openPostgresPool({ url: schema.url, maxConnections: 2, onIdleError: () => {} }) })
  stores.push(store)
  return store
}

const pr = { provider: 'github', repository: 'acme/api', prNumber: 7 } as const
const before = { state: 'unannounced', lifecycle: { state: 'unannounced' } as never }
const intent: PostIntent = { ...pr, channel: 'C1', marker: 'd-1', mentions: [], ...before, lastDeliveryId: null, reactions: [], createdAt: Date.now() }
const final: MessageRecord = { ...pr, channel: 'C1', ts: '1.0001', mentions: [], state: 'open', lifecycle: { state: 'open' } as never, lastDeliveryId: 'd-1', reactions: ['eyes'] }

it('a replica starting during another\'s post waits for the pull request and leaves the settled post alone', async () => {
  const [live, starting] = [await replica(), await replica()]
  // The live replica is in its batch: it holds the pull request and has recorded its intent to post.
  const releaseLive = await live.lockPullRequest('github:acme/api#7')
  await live.recordPostIntent(intent)

  let intentsRead!: () => void
  const read = new Promise<void>((resolve) => { intentsRead = resolve })
  const observed: Store = { ...starting, postIntents: async () => { const all = await starting.postIntents(); intentsRead(); return all } }
  let searches = 0
  let openSearch!: () => void
  const searchMayAnswer = new Promise<void>((resolve) => { openSearch = resolve })
  const lines: string[] = []
  const recovery = recoverIntents({
    sources: pullRequestIntents({
      store: observed,
      pacer: createSlackPacer({ pacing: 'off', parallel: 8, signal: new AbortController().signal }),
      // The post is in the channel: a search that runs finds it (once the test lets it answer). No thread reply is left.
      outbox: { findPost: async () => { searches++; await searchMayAnswer; return final.ts } } as unknown as Outbox,
    }),
    logger: createLogger({ format: 'json', level: 'debug', write: (line) => lines.push(line) }),
    sleep: createShutdownSleep(new AbortController().signal),
    settleMs: 0,
  })
  await read

  // The live replica's post lands and its batch commits the final state, then it lets the pull request go.
  await live.completePostIntent({ ...final, ...before, lastDeliveryId: null, reactions: [] })
  await live.commitOutcome({ provider: 'github', deliveryIds: [], messages: [final] })
  await releaseLive()
  openSearch()
  await recovery

  expect(searches).toBe(0)
  expect((await live.findMessages(pr)).map((m) => [m.state, m.lifecycle, m.reactions])).toEqual([['open', { state: 'open' }, ['eyes']]])
  expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(expect.objectContaining({ msg: 'interrupted posts looked up', count: 1, settled_elsewhere: 1, found: 0 }))
})
