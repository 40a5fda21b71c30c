import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/store.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { storeBackends, useTwoStores } from '../helpers/store-backends.ts'

/** The review forms of issue 33.3 (migrations/0020) on SQLite and PostgreSQL: looked up by id, submitted once across replicas. */
let postgresDatabase: TestDatabase
beforeAll(async () => { postgresDatabase = await createTestDatabase() })
afterAll(() => postgresDatabase.drop())

const pr = { provider: 'github', repository: 'acme/api', prNumber: 7 } as const
const form = (id: string, expiresAt = 10_000) => ({ id, pr, headSha: 'abc123', action: 'approve' as const, slackUser: 'U1', expiresAt })
describe.each(storeBackends(() => postgresDatabase))('review forms: $name', (backend) => {
  let now = 5000
  let store: Store
  let other: Store
  const stores = useTwoStores(backend, () => now)
  beforeEach(() => {
    now = 5000
    ;({ store, other } = stores())
  })

  it('gives a form back by its id, decoded; an id never issued is none', async () => {
    await store.saveReviewForm(form('f1'))
    expect(await other.reviewForm('f1')).toEqual(form('f1'))
    expect(await other.reviewForm('f2')).toBeUndefined()
  })

  it('is submitted by exactly one of two replicas, and says so afterwards', async () => {
    await store.saveReviewForm(form('f1'))
    const taken = await Promise.all([store.takeReviewForm('f1'), other.takeReviewForm('f1')])
    expect(taken.filter(Boolean)).toHaveLength(1)
    expect(await store.reviewForm('f1')).toMatchObject({ submitted: true })
  })

  it('drops expired forms when the next is saved', async () => {
    await store.saveReviewForm(form('old', 6000))
    now = 7000
    await store.saveReviewForm(form('new', 20_000))
    expect(await store.reviewForm('old')).toBeUndefined()
    expect(await store.reviewForm('new')).toBeDefined()
  })

  it('the daily cleanup deletes expired forms, with no form opened after them, and keeps open ones', async () => {
    await store.saveReviewForm(form('old', 6000))
    await store.saveReviewForm(form('open', 20_000))
    now = 7000
    expect((await other.forgetBefore(0)).reviewForms).toBe(1)
    expect(await store.reviewForm('old')).toBeUndefined()
    expect(await store.reviewForm('open')).toBeDefined()
  })
})
