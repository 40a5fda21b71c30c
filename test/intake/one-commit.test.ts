import { afterEach, beforeEach, expect, it } from 'vitest'
import { join } from 'node:path'
import { hostOf } from '../../src/hosts/registry.ts'
import { createIntake } from '../../src/intake/intake.ts'
import { createLogger } from '../../src/log/logger.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase, type SqliteDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { pullRequest } from '../helpers/github-payloads.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * Issue 25: a delivery's acknowledgement waits for one durable commit. The head commit (checks on the
 * message) is written in the same transaction as the delivery row, not in a commit of its own before it.
 */
const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821' // the example pull request's head
let dir: ReturnType<typeof makeTempDir>
let db: SqliteDatabase
let store: Store
let commits = 0

beforeEach(() => {
  dir = makeTempDir()
  db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  // Counts the write transactions the store commits (its group commit runs each batch as one).
  const transaction = db.transaction.bind(db)
  db.transaction = ((fn: Parameters<typeof transaction>[0]) => {
    const tx = transaction(fn)
    const counted = (...args: unknown[]) => tx(...args)
    return Object.assign(counted, {
      default: tx.default, deferred: tx.deferred, exclusive: tx.exclusive,
      immediate: (...args: unknown[]) => {
        commits++
        return tx.immediate(...args)
      },
    })
  }) as typeof db.transaction
  store = createSqliteStore(db)
  commits = 0
})
afterEach(async () => {
  await store.close()
  dir.remove()
})

it('records a pull request event and its head commit in one commit before it is accepted', async () => {
  const handedOff: string[] = []
  const accept = createIntake({
    host: hostOf('github'), mappings: { Codertocat: { '*': { channel: 'C0000000001' } } },
    reviews: { ignoreBotReviews: false, dependencyBots: 'compact', dependencyBotLogins: [] },
    store, logger: createLogger({ format: 'json', level: 'error' }), handOff: (event) => handedOff.push(event.deliveryId),
  })
  const decoded = hostOf('github').delivery.decode('pull_request', 'delivery-1', pullRequest('opened', 7))
  expect(await accept(decoded, 'delivery-1')).toEqual({ status: 'accepted' })
  expect(commits).toBe(1)
  expect(handedOff).toEqual(['delivery-1'])
  expect(await store.pullRequestsWithHead('github', 'Codertocat/Hello-World', HEAD)).toEqual([7])
  expect((await store.pendingDeliveries()).map((d) => d.deliveryId)).toEqual(['delivery-1'])

  // A redelivery is a duplicate and still one commit; the head is seen again.
  expect(await accept(decoded, 'delivery-1')).toEqual({ status: 'ignored', reason: 'duplicate_delivery' })
  expect(commits).toBe(2)
})
