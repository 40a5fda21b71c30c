import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseWorkingHours } from '../../src/config/working-hours.ts'
import { startWeekly } from '../../src/insights/post-weekly.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createScheduler, type Scheduler } from '../../src/scheduler/scheduler.ts'
import { createOutbox } from '../../src/slack/outbox.ts'
import { migrateUp } from '../../src/store/migrations.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { createOutbound } from '../../src/worker/create-outbound.ts'
import { decodePng, inkedPixels } from '../helpers/decode-png.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'
import { WEEKLY_AT, WEEKLY_HISTORY, WEEKLY_TEXT } from '../helpers/weekly-history.ts'

/**
 * The weekly summary end to end on one server: the real store (a SQLite file), the real outbox, Slack client
 * and pacer against the fake Slack, the one scheduler on a fake clock firing the channel's job as its cron
 * would, over a fixed history whose figures are worked out by hand (test/helpers/weekly-history.ts).
 */
const AT = WEEKLY_AT
const CHANNEL = 'C0WEEKLY1'

let dir: ReturnType<typeof makeTempDir>
let slack: FakeSlack
let store: Store
let scheduler: Scheduler
let shutdown: AbortController
let now = AT
const logged: Array<Record<string, unknown>> = []

beforeEach(async () => {
  now = AT
  logged.length = 0
  dir = makeTempDir()
  const db = openDatabase(join(dir.path, 'prherald.db'))
  migrateUp(db)
  store = createSqliteStore(db, () => now)
  for (const row of WEEKLY_HISTORY) await store.commitOutcome({ provider: 'github', deliveryIds: [], messages: [], turnaround: row })
  slack = await startFakeSlack({ anyChannel: true, scopes: ['chat:write', 'reactions:write', 'channels:read', 'channels:history', 'groups:history', 'files:write'] })
  shutdown = new AbortController()
  const logger = createLogger({ format: 'json', level: 'debug', write: (line) => logged.push(JSON.parse(line) as Record<string, unknown>) })
  const { slack: client, pacer, sleep } = createOutbound({ settings: { api: { slack: slack.url }, slackPacing: 'off' }, secrets: { slackBotToken: 'xoxb-test' }, logger, signal: shutdown.signal, slackTimeoutMs: 500 })
  // The outbox on the real clock, as the fake Slack's message ts are: its look-ups search Slack's history by time.
  const outbox = createOutbox({ store, slack: client, logger, retry: { baseMs: 10, maxMs: 50 }, sleep, settleMs: 50 })
  scheduler = createScheduler({ store, logger, now: () => now })
  startWeekly({
    scheduler, store, outbox, pacer, logger, owner: 'replica-a', holdMs: 60_000, now: () => now,
    clock: () => ({ timeZone: 'UTC', hours: parseWorkingHours('08:00-19:00')! }), hours: '08:00-19:00 UTC',
    weekly: [{ channel: CHANNEL, day: 'monday', at: '09:30' }], timeZone: 'UTC',
  })
})
afterEach(async () => {
  await scheduler.stop(Date.now())
  shutdown.abort()
  await store.close()
  await slack.close()
  dir.remove()
})

const methods = () => slack.calls.map((c) => c.method).filter((m) => m.startsWith('files.') || m === 'chat.postMessage')

describe('the weekly summary', () => {
  it('uploads its chart and shares it with the figures against the four weeks before, in Slack\'s order, once a week', async () => {
    await scheduler.fire(`weekly:${CHANNEL}`)
    expect(methods()).toEqual(['files.getUploadURLExternal', 'files.completeUploadExternal'])
    // The bytes went to the upload URL Slack gave (another server), before the completion, which the fake refuses without them.
    const asked = slack.calls.find((c) => c.method === 'files.getUploadURLExternal')!.body
    expect(slack.uploads).toHaveLength(1)
    expect(slack.uploads[0]!.bytes.length).toBe(Number(asked.length))
    expect(asked).toMatchObject({ filename: 'prherald-weekly-2026-W50.png', alt_txt: expect.stringContaining('time to first review and to merge') })
    const chart = decodePng(slack.uploads[0]!.bytes)
    expect(chart.width).toBeGreaterThan(1000)
    expect(inkedPixels(chart)).toBeGreaterThan(chart.width * chart.height * 0.05)
    expect(JSON.parse(String(slack.calls.find((c) => c.method === 'files.completeUploadExternal')!.body.files))).toEqual([{ id: 'F0UPLOAD1', title: 'Review turnaround, 2026-W50' }])

    const [message, ...others] = slack.messagesIn(CHANNEL)
    expect(others).toEqual([])
    expect(message!.files?.map((f) => f.id)).toEqual(['F0UPLOAD1'])
    expect(message!.text.split('\n')).toEqual(WEEKLY_TEXT)

    // Its time again the same week (a restart, another replica's timer): nothing more.
    await scheduler.fire(`weekly:${CHANNEL}`)
    expect(methods()).toEqual(['files.getUploadURLExternal', 'files.completeUploadExternal'])
    expect(await store.weeklyPostOf(CHANNEL, '2026-W50')).toMatchObject({ fileId: 'F0UPLOAD1', doneAt: expect.any(Number), asOf: AT })
    // The next week: the next post.
    now += 7 * 24 * 3_600_000
    await scheduler.fire(`weekly:${CHANNEL}`)
    expect(slack.messagesIn(CHANNEL)).toHaveLength(2)
  })

  it('looks for a share whose answer was lost and adopts it, instead of sharing the chart twice', async () => {
    slack.faults.push({ method: 'files.completeUploadExternal', fault: { lostAnswer: 'reset' } })
    await scheduler.fire(`weekly:${CHANNEL}`)
    expect(slack.messagesIn(CHANNEL)).toHaveLength(1)
    expect(slack.count('files.completeUploadExternal')).toBe(1)
    expect(slack.count('conversations.history')).toBeGreaterThan(0)
    expect(logged.some((l) => l.msg === 'slack message found in the channel history; adopting it instead of posting again')).toBe(true)
    expect(await store.weeklyPostOf(CHANNEL, '2026-W50')).toMatchObject({ doneAt: expect.any(Number) })
  })

  it('a channel the bot is not in is refused for the week, with the reason logged, and not tried again', async () => {
    slack.channels.set(CHANNEL, { is_member: false, name: 'reviews' })
    await scheduler.fire(`weekly:${CHANNEL}`)
    expect(slack.messagesIn(CHANNEL)).toEqual([])
    const failure = logged.find((l) => l.msg === 'weekly summary failed')
    expect(failure).toMatchObject({ channel: CHANNEL, week: '2026-W50' })
    expect(String(failure!.error)).toContain('not_in_channel')
    now += 120_000
    await scheduler.fire('weekly:left')
    expect(slack.count('files.completeUploadExternal')).toBe(1)
  })

  it('an upload that failed is taken up again once its hold has run out, and shared once', async () => {
    slack.uploadFaults.push({ status: 500 })
    await scheduler.fire(`weekly:${CHANNEL}`)
    expect(slack.messagesIn(CHANNEL)).toEqual([])
    expect(logged.find((l) => l.msg === 'weekly summary failed')).toMatchObject({ channel: CHANNEL, week: '2026-W50' })
    // Within the hold nobody takes it; after it, the left-posts job does, with the figures as of the post's time.
    await scheduler.fire('weekly:left')
    expect(slack.count('files.getUploadURLExternal')).toBe(1)
    now += 61_000
    await scheduler.fire('weekly:left')
    const [message] = slack.messagesIn(CHANNEL)
    expect(message!.text).toContain('the week to Mon 7 Dec')
    expect(message!.text).toContain('*This week* — 2 merged')
    expect(slack.count('files.completeUploadExternal')).toBe(1)
  })
})
