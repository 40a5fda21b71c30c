import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import pg from 'pg'
import { WEEKDAYS } from '../../src/config/schema.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts'
import { killServer, spawnServer, type SpawnedServer } from '../helpers/spawn-prherald.ts'
import { waitFor, writeConfig } from '../helpers/start-prherald.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * The weekly summary once per week and channel with two real replicas on one PostgreSQL database: both
 * servers' timers fire at the channel's time (the next minute, in UTC); one holds the week's row and starts
 * the upload, which the fake Slack's upload server holds; that replica is SIGKILLed with the chart sent
 * nowhere. Once its hold runs out (four times database.lease_seconds) the survivor takes the week up, finds
 * nothing shared in the channel, and posts it: one message with one chart, never two.
 */
const CHANNEL = 'C0WEEKLY1'
const h = usePrherald({ slack: { anyChannel: true } })
let database: TestDatabase
let replicas: SpawnedServer[]

beforeEach(async () => {
  database = await createTestDatabase()
  replicas = []
  h.slack.scopes.push('files:write')
})
afterEach(async () => {
  await Promise.all(replicas.map((r) => killServer(r)))
  await database.drop()
})

async function query<T>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return (await client.query(sql)).rows as T[]
  } finally {
    await client.end()
  }
}

/** The first whole minute at least `leadMs` from now, in UTC: the weekly time the replicas are given. */
function nextMinute(leadMs: number): Date {
  return new Date(Math.ceil((Date.now() + leadMs) / 60_000) * 60_000)
}

describe('the weekly summary across replicas', () => {
  it('two replicas, the one posting SIGKILLed mid-upload: the survivor finishes it, one message with one chart', async () => {
    const at = nextMinute(20_000)
    const day = WEEKDAYS[(at.getUTCDay() + 6) % 7]!
    const time = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`
    writeConfig(h.dir.path, {
      git_provider: 'github', server: { log_format: 'json' }, database: { lease_seconds: 2 },
      insights: { enabled: true, weekly: { channel: CHANNEL, day, at: time } },
      mappings: { Codertocat: { '*': { channel: 'C0000000001' } } },
    })
    // The first upload's bytes are held at Slack's upload server: its replica dies there.
    let release!: () => void
    h.slack.uploadFaults.push({ until: new Promise<void>((resolve) => { release = resolve }) })
    const env = h.env({ PRHERALD_DATABASE_URL: database.url })
    replicas.push(await spawnServer(env))
    replicas.push(await spawnServer(env))

    await waitFor('an upload under way', () => h.slack.uploads.length === 1, 100_000)
    const [held] = await query<{ owner: string }>(`SELECT owner FROM weekly_posts WHERE channel = '${CHANNEL}'`)
    const victim = replicas.find((r) => held!.owner.includes(`-${r.child.pid}-`))!
    const survivor = replicas.find((r) => r !== victim)!
    expect(victim).toBeDefined()
    expect(h.slack.count('files.getUploadURLExternal')).toBe(1)
    victim.child.kill('SIGKILL')
    expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' })
    release()

    await waitFor('the survivor posted the weekly summary', () => survivor.entries().some((e) => e.msg === 'weekly summary posted'), 60_000)
    // The week's row is done: no replica takes it up again, whatever restarts.
    const messages = h.slack.messagesIn(CHANNEL)
    expect(messages).toHaveLength(1)
    expect(messages[0]!.text).toMatch(/^\*Weekly review summary\*: the week to /)
    expect(messages[0]!.files).toHaveLength(1)
    expect(h.slack.count('files.completeUploadExternal')).toBe(1)
    // The survivor started its own upload (the victim's file was never shared), and looked for the victim's first.
    expect(h.slack.count('files.getUploadURLExternal')).toBe(2)
    expect(h.slack.files.get('F0UPLOAD1')?.shared).toBeUndefined()
    expect(messages[0]!.files![0]!.id).toBe('F0UPLOAD2')
    const [row] = await query<{ owner: string; outcome: string }>(`SELECT owner, outcome FROM weekly_posts WHERE channel = '${CHANNEL}'`)
    expect(row).toMatchObject({ outcome: 'posted' })
    expect(row!.owner.includes(`-${survivor.child.pid}-`)).toBe(true)
  }, 180_000)
})
