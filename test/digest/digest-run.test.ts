import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { hostMappings } from '../../src/routing/resolve-route.ts'
import { join } from 'node:path'
import { loadSettings } from '../../src/config/load-config.ts'
import { runDigest } from '../../src/digest/run-digest.ts'
import { startDigest } from '../../src/digest/start-digest.ts'
import { createScheduler } from '../../src/scheduler/scheduler.ts'
import { createSlackPacer } from '../../src/slack/slack-pacer.ts'
import { createLogger } from '../../src/log/logger.ts'
import { createSlackClient } from '../../src/slack/slack-client.ts'
import { createOutbox } from '../../src/slack/outbox.ts'
import { DEFAULT_RETRY } from '../../src/slack/retry-transient.ts'
import { createShutdownSleep } from '../../src/slack/shutdown-sleep.ts'
import { openDatabase } from '../../src/store/open-database.ts'
import { createSqliteStore } from '../../src/store/sqlite-store.ts'
import type { Store } from '../../src/store/store.ts'
import { FAKE_SLACK_LIMITS } from '../helpers/fake-slack.ts'
import { TEST_SLACK_TOKEN } from '../helpers/signed-delivery.ts'
import { announce, digestIn, OWNER } from './digest-e2e-helpers.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * One digest run over pull requests that real signed deliveries announced (the service is then stopped, as a
 * process that is down would be): two processes on one database, a list longer than one Slack message, and a
 * channel Slack refuses. Only `Date` is faked.
 */
const TEAM = 'C0000000001'
const OTHER_TEAM = 'C0000000002'

const h = usePrherald({
  config: {
    mappings: { [OWNER]: { 'Hello-World': { channel: TEAM }, 'Other-Repo': { channel: OTHER_TEAM } } },
  },
})
let logs: string[]
const stores: Store[] = []
const aborts: AbortController[] = []

beforeEach(async () => {
  logs = []
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(new Date('2026-11-19T10:00:00Z')) // Thursday
})
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort()
  for (const s of stores.splice(0)) await s.close()
  vi.useRealTimers()
})

const entries = () => logs.map((l) => JSON.parse(l) as Record<string, unknown>)

/** What one prherald process brings to a run: its own connection to the database, Slack client and pacer. */
function aProcess() {
  const settings = loadSettings(h.env(), h.dir.path)
  const store = createSqliteStore(openDatabase(join(h.dir.path, 'prherald.db')))
  stores.push(store)
  const logger = createLogger({ format: 'json', level: 'debug', write: (l) => logs.push(l) })
  const abort = new AbortController()
  aborts.push(abort)
  const slack = createSlackClient({ token: TEST_SLACK_TOKEN, apiUrl: settings.api.slack, logger, retry: { retries: 0 } })
  return {
    store, logger, mappings: hostMappings(settings.hosts), digest: settings.digest,
    outbox: createOutbox({ store, slack, logger, retry: DEFAULT_RETRY, sleep: createShutdownSleep(abort.signal), settleMs: 2000 }),
    pacer: createSlackPacer({ pacing: 'off', parallel: 4, signal: abort.signal }),
  }
}

async function announced(prs: Array<[repo: string, number: number, title?: string]>): Promise<void> {
  await h.start(h.env())
  try {
    for (const [repo, number, title] of prs) await announce(h.service!, repo, number, { title })
  } finally {
    await h.stop()
  }
}

const AT = Date.parse('2026-11-20T09:00:00Z') // Friday

describe('a digest run', () => {
  it('two processes on one database running the same scheduled run: exactly one posts', async () => {
    await announced([['Hello-World', 1], ['Other-Repo', 2]])
    const before = h.slack.calls.length
    const JOB = 'digest:0 9 * * 1-5'
    const schedulers = [aProcess(), aProcess()].map((deps) => {
      const scheduler = createScheduler({ store: deps.store, logger: deps.logger })
      startDigest({ ...deps, scheduler })
      return scheduler
    })
    vi.setSystemTime(AT)
    await Promise.all(schedulers.map((s) => s.fire(JOB)))
    expect(digestIn(h.slack, TEAM).parents).toHaveLength(1)
    expect(digestIn(h.slack, OTHER_TEAM).parents).toHaveLength(1)
    expect(h.slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage')).toHaveLength(4)
    expect(entries().filter((e) => e.msg === 'job already ran for this period')).toEqual([expect.objectContaining({ job: JOB, period: '2026-11-20' })])
    // The next weekday is a run of its own.
    vi.setSystemTime(AT + 3 * 86_400_000)
    await schedulers[1]!.fire(JOB)
    expect(digestIn(h.slack, TEAM).parents).toHaveLength(2)
    for (const s of schedulers) await s.stop(Date.now())
  })

  it('a digest post whose answer was lost is found by its marker and adopted, not posted twice; its replies follow', async () => {
    await announced([['Hello-World', 1]])
    h.slack.faults.push({ method: 'chat.postMessage', channel: TEAM, fault: { lostAnswer: 'reset' } })
    const result = await runDigest(aProcess(), { at: AT, dryRun: false })
    expect(result.failedChannels).toBe(0)
    const { parents, replies } = digestIn(h.slack, TEAM)
    expect(parents).toHaveLength(1)
    expect(replies.map((r) => r.threadTs)).toEqual([parents[0]!.ts])
    expect(entries().filter((e) => e.msg === 'slack message found in the channel history; adopting it instead of posting again')).toHaveLength(1)
  })

  it('a list longer than one message is split across replies in the thread, each within Slack\'s limits, no line cut', async () => {
    const title = (n: number) => `A long title for pull request ${n} ${'x'.repeat(100)}`
    await announced(Array.from({ length: 40 }, (_, i) => ['Hello-World', i + 1, title(i + 1)] as [string, number, string]))
    const result = await runDigest(aProcess(), { at: AT, dryRun: false })
    expect(result.failedChannels).toBe(0)
    const { parents, replies } = digestIn(h.slack, TEAM)
    expect(parents.map((p) => p.text)).toEqual(['40 pull requests waiting since before today; the list is in the thread.'])
    expect(replies.length).toBeGreaterThan(1)
    for (const reply of replies) {
      expect(reply.threadTs).toBe(parents[0]!.ts)
      expect(reply.text.length).toBeLessThanOrEqual(FAKE_SLACK_LIMITS.blockText)
    }
    const lines = replies.flatMap((r) => r.text.split('\n'))
    expect(lines).toHaveLength(40)
    expect(lines.map((l) => /PR #(\d+): /.exec(l)?.[1])).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)))
    for (const [i, line] of lines.entries()) expect(line).toContain(title(i + 1))
  })

  it('a channel Slack refuses is logged with its fix; the other channels still get theirs', async () => {
    await announced([['Hello-World', 1], ['Other-Repo', 2]])
    h.slack.channelErrors.set(TEAM, 'not_in_channel')
    const result = await runDigest(aProcess(), { at: AT, dryRun: false })
    expect(result).toMatchObject({ postedChannels: 1, failedChannels: 1 })
    expect(result.lines).toContain(`${TEAM}: failed, see the server log; --force posts it again today`)
    expect(digestIn(h.slack, OTHER_TEAM).parents).toHaveLength(1)
    expect(entries().filter((e) => e.msg === 'digest failed in a channel')).toEqual([expect.objectContaining({
      level: 'error', channel: TEAM, fix: 'invite the bot to the channel (/invite @your-bot in Slack)',
    })])
  })

  it('a dry run describes each channel\'s digest and makes no Slack call', async () => {
    await announced([['Hello-World', 1, 'Add rate limits']])
    const before = h.slack.calls.length
    const result = await runDigest(aProcess(), { at: AT, dryRun: true })
    expect(h.slack.calls.slice(before)).toEqual([])
    expect(result.lines).toEqual([
      `${TEAM}: 1 pull request (schedule 0 9 * * 1-5)`,
      '  1 pull request waiting since before today; the list is in the thread.',
      expect.stringMatching(/^ {4}• <https:\/\/github\.com\/Codertocat\/Hello-World\/pull\/1\|PR #1: Add rate limits> · /),
      'dry run: 1 pull request would be listed for 2026-11-20; nothing posted',
    ])
  })
})
