import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { waitFor, writeConfig, type TestService } from '../helpers/start-prherald.ts'
import { parseExposition, sampleValue } from '../metrics/parse-exposition.ts'
import { announce, approve, comment, digestIn, OWNER } from './digest-e2e-helpers.ts'
import { usePrherald } from '../helpers/prherald-harness.ts'

/**
 * The digest on its schedule, end to end: real signed deliveries announce the pull requests, the real service
 * runs the croner schedule, and the fake Slack records the posts. Time is a fake clock: only `Date` is faked
 * (frozen, moved by the test), so sockets, SQLite and croner's own timers run for real. The scheduler is
 * started with the clock a moment before the run, then the clock is moved past it: croner's next wake-up
 * finds the time has come.
 */
const TEAM = 'C0000000001'
const OTHER_TEAM = 'C0000000002'

const h = usePrherald()

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] })
})
afterEach(async () => {
  vi.useRealTimers()
})

function configure(digest: Record<string, unknown>): void {
  writeConfig(h.dir.path, {
    git_provider: 'github',
    digest,
    mappings: { [OWNER]: { 'Hello-World': { channel: TEAM, mentions: ['<!subteam^S1>'] }, 'Other-Repo': { channel: OTHER_TEAM } } },
  })
}

async function start(): Promise<TestService> {
  await h.start(h.env())
  return h.service!
}

async function restartAt(iso: string): Promise<TestService> {
  await h.stop()
  vi.setSystemTime(new Date(iso))
  return start()
}

const digestRuns = async (result: string) =>
  sampleValue(parseExposition(await (await fetch(h.service!.metricsUrl)).text()), 'prherald_digest_runs_total', { result })
const logged = (msg: string) => h.service!.entries().filter((e) => e.msg === msg)
const postsSince = (before: number) => h.slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage')

/** Starts the service just before `runAt`, moves the clock past it, and waits for the run to log `until`. */
async function runScheduleAt(runAt: string, until: string): Promise<void> {
  await restartAt(new Date(Date.parse(runAt) - 10).toISOString())
  vi.setSystemTime(new Date(Date.parse(runAt) + 500))
  await waitFor(`the digest run to log "${until}"`, () => logged(until).length > 0)
}

describe('the digest on its schedule', () => {
  it('on a weekday: one parent per channel with stuck pull requests, the list in its thread; fresh activity, bots and quiet channels left out', async () => {
    configure({ schedule: '0 9 * * 1-5', timezone: 'UTC' })
    vi.setSystemTime(new Date('2026-11-20T10:00:00Z')) // Friday
    const s = await start()
    await announce(s, 'Hello-World', 1, { title: 'Add rate limits' })
    await announce(s, 'Hello-World', 2, { title: 'Retry webhooks' })
    await approve(s, 'Hello-World', 2, 'carol')
    await announce(s, 'Hello-World', 3, { title: 'Bump pg', author: 'dependabot[bot]' })
    await announce(s, 'Hello-World', 4, { title: 'Commented this morning' })
    vi.setSystemTime(new Date('2026-11-23T08:00:00Z')) // Monday, before the run
    await comment(s, 'Hello-World', 4, 'dave')
    await announce(s, 'Other-Repo', 5, { title: 'Announced this morning' })
    const before = h.slack.calls.length

    await runScheduleAt('2026-11-23T09:00:00Z', 'digest finished')

    const posts = postsSince(before)
    const { parents, replies } = digestIn(h.slack, TEAM)
    expect(parents).toHaveLength(1)
    expect(parents[0]!.text).toBe('2 pull requests waiting since before today; the list is in the thread.')
    expect(replies).toHaveLength(1)
    expect(replies[0]!.threadTs).toBe(parents[0]!.ts)
    const lines = replies[0]!.text.split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^• <https:\/\/github\.com\/Codertocat\/Hello-World\/pull\/1\|PR #1: Add rate limits> · Codertocat\/Hello-World · Codertocat · \d+ days old · waiting on review$/)
    // (The review's payload carries its example's title, which the message takes over.)
    expect(lines[1]).toMatch(/\/pull\/2\|PR #2: .* · approved by carol, not merged$/)
    // The other channel has nothing stuck: it gets nothing. Two posts in all: the parent and its one reply.
    expect(digestIn(h.slack, OTHER_TEAM).parents).toEqual([])
    expect(posts.map((p) => [p.body.channel, p.body.thread_ts])).toEqual([[TEAM, undefined], [TEAM, parents[0]!.ts]])
    expect(logged('digest posted')).toEqual([expect.objectContaining({ channel: TEAM, schedule: '0 9 * * 1-5', date: '2026-11-23', pull_requests: 2, replies: 1 })])
    expect(h.service!.entries().filter((e) => e.level === 'error')).toEqual([])
    expect(await digestRuns('posted')).toBe(1)
  })

  it('digest.mention puts the channel\'s mentions on the parent, never on the replies', async () => {
    configure({ schedule: '0 9 * * 1-5', mention: true })
    vi.setSystemTime(new Date('2026-11-19T10:00:00Z'))
    await announce(await start(), 'Hello-World', 1)
    await runScheduleAt('2026-11-20T09:00:00Z', 'digest finished')
    const { parents, replies } = digestIn(h.slack, TEAM)
    expect(parents.map((p) => p.text)).toEqual(['<!subteam^S1> 1 pull request waiting since before today; the list is in the thread.'])
    expect(replies[0]!.text).not.toContain('<!subteam^S1>')
  })

  it('on a weekend: no Slack call, and "skipped digest" with reason weekend and the date', async () => {
    configure({ schedule: '0 9 * * *' })
    vi.setSystemTime(new Date('2026-11-19T10:00:00Z'))
    await announce(await start(), 'Hello-World', 1)
    const before = h.slack.calls.length
    await runScheduleAt('2026-11-21T09:00:00Z', 'skipped digest')
    expect(logged('skipped digest')).toEqual([expect.objectContaining({ level: 'info', reason: 'weekend', date: '2026-11-21', schedule: '0 9 * * *' })])
    expect(h.slack.calls.slice(before)).toEqual([])
    await waitFor('the skipped run to be counted', async () => (await digestRuns('skipped')) === 1)
    expect(await digestRuns('posted')).toBe(0)
  })

  it('on a regional public holiday: no Slack call, and "skipped digest" with reason holiday, its name and the date', async () => {
    configure({ schedule: '0 9 * * 1-5', timezone: 'Europe/Berlin', holidays: 'DE-BY' })
    vi.setSystemTime(new Date('2026-01-02T10:00:00Z'))
    await announce(await start(), 'Hello-World', 1)
    const before = h.slack.calls.length
    await runScheduleAt('2026-01-06T08:00:00Z', 'skipped digest') // Epiphany, 09:00 in Berlin: a holiday in Bavaria only
    expect(logged('skipped digest')).toEqual([expect.objectContaining({ reason: 'holiday', holiday: 'Heilige Drei Könige', date: '2026-01-06' })])
    expect(h.slack.calls.slice(before)).toEqual([])
  })

  it('"before today" is midnight in digest.timezone: 23:30 in Berlin the evening before is stuck, 00:30 is not', async () => {
    configure({ schedule: '0 9 * * 1-5', timezone: 'Europe/Berlin' })
    vi.setSystemTime(new Date('2026-11-22T22:30:00Z')) // Sunday 23:30 in Berlin (and in UTC still Sunday)
    const s = await start()
    await announce(s, 'Hello-World', 1, { title: 'Late on Sunday' })
    vi.setSystemTime(new Date('2026-11-22T23:30:00Z')) // Monday 00:30 in Berlin, Sunday 23:30 in UTC
    await announce(s, 'Hello-World', 2, { title: 'Just after midnight' })
    await runScheduleAt('2026-11-23T08:00:00Z', 'digest finished') // 09:00 in Berlin
    const { parents, replies } = digestIn(h.slack, TEAM)
    expect(parents.map((p) => p.text)).toEqual(['1 pull request waiting since before today; the list is in the thread.'])
    expect(replies.map((r) => r.text)).toEqual([expect.stringContaining('PR #1: Late on Sunday')])
    expect(logged('digest posted')).toEqual([expect.objectContaining({ date: '2026-11-23' })])
  })

  it('a missed run is not made up: a start after 09:00 posts nothing that day; the next run is the next weekday', async () => {
    configure({ schedule: '0 9 * * 1-5' })
    vi.setSystemTime(new Date('2026-11-19T10:00:00Z'))
    await announce(await start(), 'Hello-World', 1)
    const before = h.slack.calls.length
    await restartAt('2026-11-20T09:30:00Z')
    expect(logged('digest scheduled')).toEqual([expect.objectContaining({ schedule: '0 9 * * 1-5', next_run: '2026-11-23T09:00:00.000Z' })])
    expect(h.slack.calls.slice(before)).toEqual([])
  })
})
