import type { Admission, BudgetDraw, SharedPacingBudget } from './shared-pacing-budget.ts'
import type { PostgresPool } from './postgres-pool.ts'
import { DATABASE_NOW_MS } from './postgres-shared-work.ts'
import { inPostgresTransaction } from './postgres-transaction.ts'

export interface PostgresPacingBudgetDeps {
  pool: PostgresPool
  /**
   * The cluster's clock, unix milliseconds (the pacer's own clock is per process). By default PostgreSQL's
   * own: a replica whose clock ran ahead would otherwise move `at` and `held_until` into the others' future
   * and starve them of every budget for as long. Tests pass a fake one that all their pacers share.
   */
  now?: () => number
}

interface BudgetRow { key: string; tokens: number; at: string; held_until: string; database_now: string }

// Same tolerance as the pacer's own buckets: float arithmetic must not leave a call a hair short of its token.
const EPSILON = 1e-9

// Every time parameter is the injected clock's, or NULL for the database's.
const at = (param: string) => `coalesce(${param}::bigint, ${DATABASE_NOW_MS})`
const ENSURE = `INSERT INTO pacing_budgets (key, tokens, at) SELECT key, tokens, ${at('$3')} FROM unnest($1::text[], $2::float8[]) AS u(key, tokens)
  ON CONFLICT (key) DO NOTHING`
const LOCK = `SELECT key, tokens, at, held_until, ${DATABASE_NOW_MS} AS database_now FROM pacing_budgets WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`
const SPEND = `UPDATE pacing_budgets p SET tokens = u.tokens, at = greatest(p.at, $1)
  FROM unnest($2::text[], $3::float8[]) AS u(key, tokens) WHERE p.key = u.key`
const HOLD = `INSERT INTO pacing_budgets (key, tokens, at, held_until) VALUES ($1, 0, ${at('$2')}, ${at('$2')} + $3)
  ON CONFLICT (key) DO UPDATE SET held_until = greatest(pacing_budgets.held_until, excluded.held_until)`
const EMPTY = `UPDATE pacing_budgets p SET tokens = least(0, p.tokens + greatest(0, ${at('$1')} - p.at) * u.per_minute / 60000.0), at = greatest(p.at, ${at('$1')})
  FROM unnest($2::text[], $3::float8[]) AS u(key, per_minute) WHERE p.key = u.key`

/**
 * The replicas' shared Slack budget: a token bucket per budget key in `pacing_budgets`, refilled and spent
 * in one short transaction under the rows' locks (taken in key order, so two calls never deadlock), the
 * same arithmetic as the pacer's in-memory buckets. No Slack call happens inside it: the transaction ends
 * before the call is made. A refusal says how long each short budget needs, and the pacer waits that long.
 */
export function createPostgresPacingBudget({ pool, now }: PostgresPacingBudgetDeps): SharedPacingBudget {
  // A key's row is made once (full bucket) and never deleted; remembering which exist spares the insert.
  const ensured = new Set<string>()
  return {
    async take(budgets: readonly BudgetDraw[], holdKey: string): Promise<Admission> {
      const keys = [...new Set([holdKey, ...budgets.map((b) => b.key)])].sort()
      const missing = keys.filter((k) => !ensured.has(k))
      if (missing.length > 0) {
        const burst = (k: string) => budgets.find((b) => b.key === k)?.limit.burst ?? 0
        await pool.query(ENSURE, [missing, missing.map(burst), now?.() ?? null])
        for (const k of missing) ensured.add(k)
      }
      return inPostgresTransaction(pool, async (client) => {
        const locked = (await client.query<BudgetRow>(LOCK, [keys])).rows
        const rows = new Map(locked.map((r) => [r.key, r]))
        // No row locked (each deleted by hand): every budget is short below, and the time is not used.
        const t = now?.() ?? Number(locked[0]?.database_now ?? 0)
        const short: Array<{ key: string; waitMs: number }> = []
        const held = Number(rows.get(holdKey)?.held_until ?? 0)
        if (held > t) short.push({ key: holdKey, waitMs: held - t })
        const after = budgets.map(({ key, limit }) => {
          const row = rows.get(key)
          // Only a row deleted by hand is missing: make it again at the next try.
          if (!row) return (ensured.delete(key), short.push({ key, waitMs: 0 }), 0)
          const heldUntil = Number(row.held_until)
          const tokens = Math.min(limit.burst, row.tokens + (Math.max(0, t - Number(row.at)) * limit.perMinute) / 60_000)
          if (heldUntil > t && key !== holdKey) short.push({ key, waitMs: heldUntil - t })
          else if (tokens < 1 - EPSILON) short.push({ key, waitMs: ((1 - tokens) * 60_000) / limit.perMinute })
          return tokens - 1
        })
        if (short.length === 0) await client.query(SPEND, [t, budgets.map((b) => b.key), after])
        return short.length === 0 ? { granted: true } : { granted: false, short }
      })
    },
    async hold(holdKey: string, budgets: readonly BudgetDraw[], holdMs: number) {
      const t = now?.() ?? null
      await pool.query(HOLD, [holdKey, t, holdMs])
      ensured.add(holdKey)
      await pool.query(EMPTY, [t, budgets.map((b) => b.key), budgets.map((b) => b.limit.perMinute)])
    },
  }
}
