import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { peopleOf } from '../../machines/pull-request-people.ts'
import type { PullRequestContext } from '../../machines/pull-request.machine.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { MessageRecord, Store } from '../../src/store/store.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, type Backend } from '../helpers/store-backends.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The people kept with each open pull request: /prherald mine and the Home tab read a person's pull requests
 * through them, on both stores, instead of every open message.
 */
const context = (over: Partial<PullRequestContext> = {}): PullRequestContext => ({
  provider: 'github', owner: 'acme', repo: 'api', number: 7, title: 'Add rate limiting', url: 'https://github.com/acme/api/pull/7',
  author: 'Alice', createdAt: '2026-11-20T09:00:00Z',
  reviewRequests: {
    listedAt: '2026-11-20T10:00:00Z',
    listed: [{ type: 'user', login: 'Bob' }, { type: 'team', slug: 'Backend', name: 'Backend' }, { type: 'user', login: 'carol', accountId: '557058:c4r0l' }],
    marks: [{ reviewer: { type: 'user', login: 'Bob' }, at: '2026-11-20T11:00:00Z', asked: false }],
  },
  ...over,
} as PullRequestContext)

const row = (over: Partial<MessageRecord> & { context?: PullRequestContext } = {}): MessageRecord => {
  const { context: c = context(), ...rest } = over
  return {
    provider: 'github', repository: 'acme/api', prNumber: 7, channel: 'C0API', ts: '1712345678.000100', mentions: [], state: 'open',
    lifecycle: { state: 'open', context: c } as never, lastDeliveryId: 'd-1', reactions: [], ...rest,
  }
}

describe('peopleOf', () => {
  it('keys the author and whoever it still waits on, in lower case, the account id where the host gives one', () => {
    // Bob reviewed after the list named him (his mark is newer and done): he is waited on no more.
    expect(peopleOf(context())).toEqual(['user:alice', 'team:backend', 'user:557058:c4r0l'])
    expect(peopleOf(context({ author: '' }))).toEqual(['team:backend', 'user:557058:c4r0l'])
  })
})

let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

describe.each(storeBackends(() => postgresDatabase))('the people of open pull requests: $name', (backend) => {
  let db: Awaited<ReturnType<Backend['create']>>
  let store: Store
  beforeEach(async () => {
    db = await backend.create()
    store = await db.open(() => Date.UTC(2026, 10, 20, 12))
  })
  afterEach(async () => {
    await store.close()
    await db.remove()
  })

  const numbers = async (people: string[]) => (await store.openMessagesOf('github', people)).map((m) => `${m.prNumber}@${m.channel}`).sort()

  it('finds a pull request by its author, a reviewer it waits on and a team asked, in each of its channels', async () => {
    await store.saveMessage(row())
    await store.saveMessage(row({ channel: 'C0WEB' }))
    await store.saveMessage(row({ prNumber: 8, context: context({ number: 8, author: 'dave', reviewRequests: { listed: [], marks: [] } }) }))
    expect(await numbers(['user:alice'])).toEqual(['7@C0API', '7@C0WEB'])
    expect(await numbers(['team:backend', 'user:557058:c4r0l'])).toEqual(['7@C0API', '7@C0WEB'])
    expect(await numbers(['user:bob'])).toEqual([])
    expect(await numbers(['user:dave'])).toEqual(['8@C0API'])
    expect(await store.openMessagesOf('gitlab', ['user:alice'])).toEqual([])
    expect(await store.openMessagesOf('github', [])).toEqual([])
  })

  it('follows the pull request: a new reviewer finds it, a merged one is nobody\'s', async () => {
    await store.saveMessage(row())
    const askedErin = context({ reviewRequests: { listedAt: '2026-11-21T10:00:00Z', listed: [{ type: 'user', login: 'erin' }], marks: [] } })
    await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [row({ context: askedErin })] })
    expect(await numbers(['user:erin'])).toEqual(['7@C0API'])
    expect(await numbers(['team:backend'])).toEqual([])
    await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [row({ state: 'merged', context: askedErin })] })
    expect(await numbers(['user:erin'])).toEqual([])
    expect(await numbers(['user:alice'])).toEqual([])
  })
})

describe('a database an earlier version wrote', () => {
  it('gets the people of its open messages kept once, at the next start', async () => {
    const dir = makeTempDir()
    try {
      const path = join(dir.path, 'prherald.db')
      const db = openDatabase(path)
      migrateUp(db)
      const store = createSqliteStore(db, () => Date.UTC(2026, 10, 20, 12))
      await store.saveMessage(row())
      await store.saveMessage(row({ channel: 'C0WEB' }))
      await store.saveMessage(row({ prNumber: 9, state: 'merged', context: context({ number: 9 }) }))
      // As an earlier version left it: messages, no people.
      const raw = new Database(path)
      raw.prepare('DELETE FROM pull_request_people').run()
      raw.close()
      expect(await store.openMessagesOf('github', ['user:alice'])).toEqual([])
      expect(await store.keepPeopleOfOpenMessages()).toBe(1)
      expect((await store.openMessagesOf('github', ['user:alice'])).map((m) => m.channel).sort()).toEqual(['C0API', 'C0WEB'])
      expect(await store.keepPeopleOfOpenMessages()).toBe(0)
      await store.close()
    } finally {
      dir.remove()
    }
  })
})
