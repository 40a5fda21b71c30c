import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startDigestScheduler, type DigestScheduler } from '../../src/digest/digest-scheduler.ts'

let scheduler: DigestScheduler | undefined

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  scheduler?.stop()
  scheduler = undefined
  vi.useRealTimers()
})

/** Moves the fake clock to shortly before `iso`, then lets a minute pass: croner wakes at least every 30 s. */
async function passThrough(iso: string): Promise<void> {
  vi.setSystemTime(Date.parse(iso) - 10_000)
  await vi.advanceTimersByTimeAsync(60_000)
}

describe('startDigestScheduler', () => {
  it('runs each distinct schedule once at its time in the zone', async () => {
    vi.setSystemTime(new Date('2026-11-23T07:00:00Z')) // Monday 08:00 in Berlin
    const runs: Array<[string, string]> = []
    scheduler = startDigestScheduler({
      schedules: ['0 9 * * 1-5', '0 9 * * 1-5', '30 14 * * 1'],
      timezone: 'Europe/Berlin',
      run: async (schedule, at) => { runs.push([schedule, new Date(at).toISOString().slice(0, 16)]) },
      onError: () => {},
    })
    expect(scheduler.nextRuns()).toEqual([
      { schedule: '0 9 * * 1-5', at: Date.parse('2026-11-23T08:00:00Z') },
      { schedule: '30 14 * * 1', at: Date.parse('2026-11-23T13:30:00Z') },
    ])
    await passThrough('2026-11-23T08:00:00Z')
    expect(runs).toEqual([['0 9 * * 1-5', '2026-11-23T08:00']])
    await passThrough('2026-11-23T13:30:00Z')
    expect(runs).toEqual([['0 9 * * 1-5', '2026-11-23T08:00'], ['30 14 * * 1', '2026-11-23T13:30']])
  })

  it('a run missed while the process was down is not made up when it starts later that day', async () => {
    vi.setSystemTime(new Date('2026-11-23T09:05:00Z'))
    let calls = 0
    scheduler = startDigestScheduler({ schedules: ['0 9 * * *'], timezone: 'UTC', run: async () => { calls++ }, onError: () => {} })
    await vi.advanceTimersByTimeAsync(5 * 60_000)
    expect(calls).toBe(0)
    expect(scheduler.nextRuns()[0]?.at).toBe(Date.parse('2026-11-24T09:00:00Z'))
  })

  it('a run that throws is reported, and the schedule fires again the next day', async () => {
    vi.setSystemTime(new Date('2026-11-23T08:00:00Z'))
    const errors: unknown[] = []
    let calls = 0
    scheduler = startDigestScheduler({
      schedules: ['0 9 * * *'],
      timezone: 'UTC',
      run: async () => {
        calls++
        throw new Error('slack down')
      },
      onError: (_schedule, error) => errors.push(error),
    })
    await passThrough('2026-11-23T09:00:00Z')
    await passThrough('2026-11-24T09:00:00Z')
    expect(calls).toBe(2)
    expect(errors.map((e) => (e as Error).message)).toEqual(['slack down', 'slack down'])
  })

  it('stop() ends every job: nothing fires afterwards', async () => {
    vi.setSystemTime(new Date('2026-11-23T08:00:00Z'))
    let calls = 0
    scheduler = startDigestScheduler({ schedules: ['0 9 * * *'], timezone: 'UTC', run: async () => { calls++ }, onError: () => {} })
    scheduler.stop()
    await passThrough('2026-11-23T09:00:00Z')
    expect(calls).toBe(0)
  })
})
