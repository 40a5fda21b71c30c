import { afterEach, beforeEach, expect, it } from 'vitest'
import { createLogger } from '../../src/log/logger.ts'
import { HISTORY_PAGES, postMarker } from '../../src/slack/find-marked-message.ts'
import { createOutbox, type OutboxDeps, type SlackCall } from '../../src/slack/outbox.ts'
import { createSlackClient, type SlackClient } from '../../src/slack/slack-client.ts'
import type { PostIntent } from '../../src/store/store.ts'
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.ts'

/**
 * Issue 23.9: the search for a post of unknown outcome is bounded by time (the intent's time less the
 * clock-skew allowance, to now), not by a page count. The chaos run found a lost post some 500 messages back
 * in a busy channel, past the old three pages of 100, and posted it twice.
 */
type LogEntry = Record<string, unknown>
const CHANNEL = 'C0000000001'
let slack: FakeSlack
let client: SlackClient
let entries: LogEntry[]
beforeEach(async () => {
  slack = await startFakeSlack()
  entries = []
  const logger = createLogger({ format: 'json', level: 'info', write: (line) => entries.push(JSON.parse(line) as LogEntry) })
  client = createSlackClient({ token: 'xoxb-test', apiUrl: slack.url, logger })
})
afterEach(() => slack.close())

/** Other messages in the channel, one a millisecond from `fromMs` (Slack's ts: seconds with six decimals). */
function otherMessages(count: number, fromMs: number): void {
  for (let i = 0; i < count; i++) {
    const ts = ((fromMs + i) / 1000).toFixed(6)
    slack.messages.set(ts, { channel: CHANNEL, ts, text: `other ${i}`, blocks: [], reactions: new Set(), updates: 0 })
  }
}

async function search(createdAt: number): Promise<{ found: string | undefined; pages: number }> {
  const intent: PostIntent = {
    provider: 'github', repository: 'acme/api', prNumber: 7, channel: CHANNEL, marker: 'd-1', mentions: [],
    state: 'open', lifecycle: {} as never, lastDeliveryId: 'd-1', reactions: [], createdAt,
  }
  const logger = createLogger({ format: 'json', level: 'info', write: (line) => entries.push(JSON.parse(line) as LogEntry) })
  let pages = 0
  const call: SlackCall = (method, run) => { expect(method).toBe('conversations.history'); pages++; return run() }
  return { found: await createOutbox({ slack: client, logger } as OutboxDeps).findPost(intent, call, {}), pages }
}

it('finds the lost post with 450 messages after it and 400 before it, one paced call per page', async () => {
  const createdAt = Date.now()
  otherMessages(400, createdAt - 30 * 60_000)
  const ts = await client.postMessage(CHANNEL, { text: 'PR', blocks: [] }, postMarker('github:acme/api#7', 'd-1'))
  otherMessages(450, Math.ceil(Number(ts) * 1000) + 1)
  const { found, pages } = await search(createdAt)
  expect(found).toBe(ts)
  // Newest first within [intent - skew, now + skew]: both ends given, so Slack does not start at the oldest.
  const history = slack.calls.filter((c) => c.method === 'conversations.history')
  expect(pages).toBe(history.length)
  expect(history.length).toBe(3)
  for (const c of history) expect(c.body).toMatchObject({ oldest: expect.any(String), latest: expect.any(String), include_all_metadata: 'true' })
  expect(entries.filter((e) => e.level === 'warn')).toEqual([])
})

it('stops at its page bound in a channel too busy to read to the intent\'s time, and says so once per search', async () => {
  const createdAt = Date.now()
  const ts = await client.postMessage(CHANNEL, { text: 'PR', blocks: [] }, postMarker('github:acme/api#7', 'd-1'))
  otherMessages(HISTORY_PAGES * 200 + 10, Math.ceil(Number(ts) * 1000) + 1)
  const { found, pages } = await search(createdAt)
  expect(found).toBeUndefined()
  expect(pages).toBe(HISTORY_PAGES)
  const warnings = entries.filter((e) => e.level === 'warn')
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toMatchObject({ msg: expect.stringContaining('history search stopped at its bound'), channel: CHANNEL, pages: HISTORY_PAGES })
})
