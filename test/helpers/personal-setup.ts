import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { createTestDatabase, createTestSchema, type TestDatabase } from './postgres.ts'
import { startFakeSlack, type FakeSlack } from './fake-slack.ts'
import type { TestService } from './start-prherald.ts'
import { makeTempDir } from './temp-dir.ts'

/** The scopes the personal side needs on top of the channel message's (docs/slack-app.md). */
export const PERSONAL_SCOPES = ['commands', 'im:write', 'im:history', 'users:read', 'usergroups:read']

export function grantPersonalScopes(slack: FakeSlack): void {
  slack.scopes.push(...PERSONAL_SCOPES)
}

/**
 * The database URL each test of a file runs on, per store: none (the test's own SQLite file) or a fresh
 * schema in the file's PostgreSQL database, created in its beforeAll.
 */
export function personalStores(): Array<{ name: string; databaseUrl: () => Promise<{ env: Record<string, string>; drop: () => Promise<void> }> }> {
  let database: TestDatabase | undefined
  beforeAll(async () => { database = await createTestDatabase() })
  afterAll(async () => { await database?.drop() })
  return [
    { name: 'sqlite', databaseUrl: async () => ({ env: {}, drop: async () => {} }) },
    {
      name: 'postgres',
      databaseUrl: async () => {
        const schema = await createTestSchema(database!)
        return { env: { PRHERALD_DATABASE_URL: schema.url }, drop: () => schema.drop() }
      },
    },
  ]
}

/** A Wednesday at 10:00 and a Friday at 20:00 in Berlin (UTC+1 in November), and the Monday 08:00 after it. */
export const BERLIN = {
  wednesdayMorning: Date.parse('2026-11-25T09:00:00Z'),
  fridayEvening: Date.parse('2026-11-27T19:00:00Z'),
  mondayStart: Date.parse('2026-11-30T07:00:00Z'),
}

/** What a personal-side test runs against, made afresh for each test by personalHarness. */
export interface PersonalHarness {
  dir: ReturnType<typeof makeTempDir>
  slack: FakeSlack
  database: { env: Record<string, string>; drop: () => Promise<void> }
  /** Set by the test once it starts prherald; stopped after each test. */
  service: TestService | undefined
}

/**
 * Per test: a temporary directory, a fake Slack with the personal scopes, and the store's database; after
 * it, prherald (if started) stopped and all of it removed.
 */
export function personalHarness(databaseUrl: () => Promise<PersonalHarness['database']>, slackOptions: Parameters<typeof startFakeSlack>[0] = {}): PersonalHarness {
  const h = {} as PersonalHarness
  beforeEach(async () => {
    h.dir = makeTempDir()
    h.slack = await startFakeSlack(slackOptions)
    grantPersonalScopes(h.slack)
    h.database = await databaseUrl()
    h.service = undefined
  })
  afterEach(async () => {
    await h.service?.stop()
    h.service = undefined
    await h.slack.close()
    await h.database.drop()
    h.dir.remove()
  })
  return h
}
