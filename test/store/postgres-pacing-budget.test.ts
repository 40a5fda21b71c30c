import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { PrheraldError } from '../../src/errors.ts'
import { createSlackPacer, type SlackPacer } from '../../src/slack/slack-pacer.ts'
import { SLACK_RATE_LIMITS, budgetKey, type SlackMethod } from '../../src/slack/rate-limits.ts'
import { createPostgresPacingBudget } from '../../src/store/postgres-pacing-budget.ts'
import { postgresMigrateUp } from '../../src/store/postgres-migrations.ts'
import { openPostgresPool, type PostgresPool } from '../../src/store/postgres-pool.ts'
import { createTestDatabase, createTestSchema, type TestDatabase } from '../helpers/postgres.ts'
import { manualClock } from '../helpers/manual-clock.ts'

let database: TestDatabase
let schema: TestDatabase
let pools: PostgresPool[] = []
const controller = new AbortController()
beforeAll(async () => { database = await createTestDatabase() })
afterAll(async () => {
  controller.abort()
  await database.drop()
})
beforeEach(async () => {
  schema = await createTestSchema(database)
  pools = await Promise.all([0, 1].map(() => openPostgresPool({ url: schema.url, onIdleError: () => {} })))
  await postgresMigrateUp(pools[0]!)
})
afterEach(async () => {
  await Promise.all(pools.map((p) => p.end()))
  await schema.drop()
})

interface Made { replica: number; method: SlackMethod; channel: string; at: number }

function replicas(options: { shared: boolean }) {
  const time = manualClock()
  const made: Made[] = []
  const sharedErrors: unknown[] = []
  const pacers: SlackPacer[] = pools.map((pool) => createSlackPacer({
    pacing: 'published', parallel: 8, signal: controller.signal, clock: time.clock,
    shared: options.shared ? createPostgresPacingBudget({ pool, now: time.now }) : undefined,
    onSharedError: (e) => sharedErrors.push(e),
  }))
  // Real round trips to PostgreSQL run between fake ticks: wait until neither pacer has one in flight.
  const quiet = async () => {
    for (let calm = 0; calm < 3;) {
      await sleep(2)
      calm = pacers.every((p) => p.stats().running === 0) ? calm + 1 : 0
    }
  }
  const call = (replica: number, method: SlackMethod, channel: string, answer: () => Promise<void> = async () => {}) =>
    pacers[replica]!.call(method, channel, async () => {
      made.push({ replica, method, channel, at: time.now() })
      await answer()
    })
  return { time, made, sharedErrors, call, advance: (ms: number) => time.advance(ms, quiet) }
}

/** Every stretch of calls on one budget, across both replicas, that spent more than the budget allows. */
function overspent(made: readonly Made[]): string[] {
  const found: string[] = []
  for (const [method, limits] of Object.entries(SLACK_RATE_LIMITS) as Array<[SlackMethod, typeof SLACK_RATE_LIMITS[SlackMethod]]>) {
    for (const limit of limits) {
      const byKey = new Map<string, number[]>()
      for (const m of made.filter((x) => x.method === method)) {
        const key = budgetKey(method, limit.scope, m.channel)
        byKey.set(key, [...(byKey.get(key) ?? []), m.at])
      }
      for (const [key, times] of byKey) {
        times.sort((a, b) => a - b)
        for (let i = 0; i < times.length; i++) for (let j = i; j < times.length; j++) {
          const allowed = limit.burst + ((times[j]! - times[i]!) * limit.perMinute) / 60_000
          if (j - i + 1 > allowed + 1e-6) found.push(`${key}: ${j - i + 1} calls in ${times[j]! - times[i]!} ms, budget ${allowed.toFixed(2)}`)
        }
      }
    }
  }
  return found
}

/** The same work on both replicas: removals (20 a minute, burst 3) and posts to one channel (1 a second, no burst). */
async function burst(r: ReturnType<typeof replicas>) {
  const calls: Array<Promise<void>> = []
  for (let i = 0; i < 10; i++) {
    for (const replica of [0, 1]) {
      calls.push(r.call(replica, 'reactions.remove', 'C1'))
      calls.push(r.call(replica, 'chat.postMessage', 'C1'))
    }
  }
  for (let t = 0; t < 80_000; t += 500) await r.advance(500)
  await Promise.all(calls)
}

describe('shared pacing budget (PostgreSQL)', () => {
  it('two replicas on one database never together spend more than Slack\'s budget', async () => {
    const r = replicas({ shared: true })
    await burst(r)
    expect(r.sharedErrors).toEqual([])
    expect(r.made).toHaveLength(40)
    expect(overspent(r.made)).toEqual([])
    // Both replicas got their share: the budget is divided, not taken by one.
    for (const replica of [0, 1]) expect(r.made.filter((m) => m.replica === replica).length).toBe(20)
  })

  it('without it, the two replicas each spend the whole budget (what the shared one prevents)', async () => {
    const r = replicas({ shared: false })
    await burst(r)
    expect(r.made).toHaveLength(40)
    expect(overspent(r.made).length).toBeGreaterThan(0)
  })

  it('a 429 on one replica holds the budget for the other too', async () => {
    const r = replicas({ shared: true })
    let refused = false
    const first = r.call(0, 'chat.update', 'C1', async () => {
      if (refused) return
      refused = true
      throw new PrheraldError('slack_rate_limited', 'Slack: rate limited', { retryAfterMs: 10_000 })
    })
    await r.advance(100)
    const second = r.call(1, 'chat.update', 'C2')
    await r.advance(5_000)
    // Replica 1 has tokens of its own, but Slack told replica 0 to wait 10 s on this method.
    expect(r.made.filter((m) => m.replica === 1)).toEqual([])
    await r.advance(6_000)
    await Promise.all([first, second])
    const updates = r.made.filter((m) => m.replica === 1)
    expect(updates).toHaveLength(1)
    expect(updates[0]!.at).toBeGreaterThanOrEqual(10_000)
  })

  it('a database that cannot be asked lets calls go on this replica\'s own budget, and says so', async () => {
    const r = replicas({ shared: true })
    await pools[1]!.query('DROP TABLE pacing_budgets')
    const done = r.call(1, 'chat.update', 'C1')
    await r.advance(100)
    await done
    expect(r.made).toHaveLength(1)
    expect(r.sharedErrors.length).toBe(1)
  })

  it('runs on the database\'s clock: a hold made by a replica whose clock is ten minutes ahead lasts its own length for the others', async () => {
    const other = createPostgresPacingBudget({ pool: pools[1]! })
    const draw = { key: budgetKey('chat.update', 'workspace', ''), limit: SLACK_RATE_LIMITS['chat.update'][0]! }
    const holdKey = `hold:${draw.key}`
    const realNow = Date.now
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 10 * 60_000)
    try {
      await createPostgresPacingBudget({ pool: pools[0]! }).hold(holdKey, [draw], 2_000)
    } finally {
      vi.restoreAllMocks()
    }
    const admission = await other.take([draw], holdKey)
    expect(admission.granted).toBe(false)
    const waits = admission.granted ? [] : admission.short.map((s) => s.waitMs)
    expect(Math.max(...waits)).toBeLessThanOrEqual(2_000)
    expect(Math.max(...waits)).toBeGreaterThan(1_000)
  })
})
