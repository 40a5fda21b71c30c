import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../src/log/logger.ts'
import { createScheduler, type Scheduler } from '../../src/scheduler/scheduler.ts'

/**
 * The scheduler's timing, on vitest's fake timers: cron jobs fire at their times in their zone and are not
 * made up later, a failing run is reported and the job fires again, an interval job runs at start and every
 * period, and nothing fires after stop. Claims are answered by a set (the PostgreSQL claim across replicas is
 * once-per-period.test.ts).
 */
let scheduler: Scheduler | undefined
const claimed = new Set<string>()
const store = { claimRun: async (job: string, key: string) => !claimed.has(`${job}/${key}`) && Boolean(claimed.add(`${job}/${key}`)) }
const errors: string[] = []
const logger = createLogger({ format: 'json', level: 'error', write: (line) => errors.push(JSON.parse(line).error ?? JSON.parse(line).msg) })

beforeEach(() => {
  vi.useFakeTimers()
  claimed.clear()
  errors.length = 0
})
afterEach(async () => {
  await scheduler?.stop(Date.now())
  scheduler = undefined
  vi.useRealTimers()
})

/** Moves the fake clock to shortly before `iso`, then lets a minute pass: croner wakes at least every 30 s. */
async function passThrough(iso: string): Promise<void> {
  vi.setSystemTime(Date.parse(iso) - 10_000)
  await vi.advanceTimersByTimeAsync(60_000)
}

const day = (at: number) => new Date(at).toISOString().slice(0, 10)

describe('the scheduler', () => {
  it('runs each cron job once at its time in its zone, and tells its next time before it starts', async () => {
    vi.setSystemTime(new Date('2026-11-23T07:00:00Z')) // Monday 08:00 in Berlin
    const runs: Array<[string, string]> = []
    scheduler = createScheduler({ store, logger })
    for (const cron of ['0 9 * * 1-5', '30 14 * * 1']) {
      scheduler.add({ name: cron, when: { cron, timezone: 'Europe/Berlin' }, period: day, run: async ({ at }) => { runs.push([cron, new Date(at).toISOString().slice(0, 16)]) } })
    }
    expect(scheduler.nextRuns()).toEqual([
      { name: '0 9 * * 1-5', at: Date.parse('2026-11-23T08:00:00Z') },
      { name: '30 14 * * 1', at: Date.parse('2026-11-23T13:30:00Z') },
    ])
    scheduler.start()
    await passThrough('2026-11-23T08:00:00Z')
    expect(runs).toEqual([['0 9 * * 1-5', '2026-11-23T08:00']])
    await passThrough('2026-11-23T13:30:00Z')
    expect(runs).toEqual([['0 9 * * 1-5', '2026-11-23T08:00'], ['30 14 * * 1', '2026-11-23T13:30']])
  })

  it('a cron run missed while the process was down is not made up when it starts later that day', async () => {
    vi.setSystemTime(new Date('2026-11-23T09:05:00Z'))
    let calls = 0
    scheduler = createScheduler({ store, logger })
    scheduler.add({ name: 'daily', when: { cron: '0 9 * * *', timezone: 'UTC' }, period: day, run: async () => { calls++ } })
    scheduler.start()
    await vi.advanceTimersByTimeAsync(5 * 60_000)
    expect(calls).toBe(0)
    expect(scheduler.nextRuns()[0]?.at).toBe(Date.parse('2026-11-24T09:00:00Z'))
  })

  it('a run that throws is logged and reported, and the job fires again at its next time', async () => {
    vi.setSystemTime(new Date('2026-11-23T08:00:00Z'))
    const reported: unknown[] = []
    let calls = 0
    scheduler = createScheduler({ store, logger })
    scheduler.add({
      name: 'daily', when: { cron: '0 9 * * *', timezone: 'UTC' }, period: day,
      run: async () => {
        calls++
        throw new Error('slack down')
      },
      onError: (error) => reported.push(error),
    })
    scheduler.start()
    await passThrough('2026-11-23T09:00:00Z')
    await passThrough('2026-11-24T09:00:00Z')
    expect(calls).toBe(2)
    expect(reported.map((e) => (e as Error).message)).toEqual(['slack down', 'slack down'])
    expect(errors).toEqual(['slack down', 'slack down'])
  })

  it('an interval job runs at start and every period; a kick while it runs is one more run after it', async () => {
    vi.setSystemTime(new Date('2026-11-23T08:00:00Z'))
    let calls = 0
    let release: (() => void) | undefined
    scheduler = createScheduler({ store, logger })
    scheduler.add({ name: 'sender', when: { everyMs: 30_000, atStart: true }, run: () => { calls++; return new Promise<void>((resolve) => { release = resolve }) } })
    scheduler.start()
    expect(calls).toBe(1)
    scheduler.kick('sender')
    scheduler.kick('sender')
    expect(calls).toBe(1)
    release!()
    await vi.advanceTimersByTimeAsync(0)
    expect(calls).toBe(2)
    release!()
    await vi.advanceTimersByTimeAsync(30_000)
    expect(calls).toBe(3)
    release!()
  })

  it('stop() ends every job: nothing fires afterwards', async () => {
    vi.setSystemTime(new Date('2026-11-23T08:00:00Z'))
    let calls = 0
    scheduler = createScheduler({ store, logger })
    scheduler.add({ name: 'daily', when: { cron: '0 9 * * *', timezone: 'UTC' }, period: day, run: async () => { calls++ } })
    scheduler.add({ name: 'often', when: { everyMs: 1000 }, run: async () => { calls++ } })
    scheduler.start()
    expect(await scheduler.stop(Date.now())).toBe(true)
    await passThrough('2026-11-23T09:00:00Z')
    expect(calls).toBe(0)
  })
})
