/** One budget a call spends from: its key (src/slack/rate-limits.ts budgetKey) and the limit behind it. */
export interface BudgetDraw {
  key: string
  /** The limit behind the key (a RateLimit of src/slack/rate-limits.ts). */
  limit: { perMinute: number; burst: number }
}

/** Granted, or refused with each short budget and how long until it has a token (or its hold ends). */
export type Admission = { granted: true } | { granted: false; short: ReadonlyArray<{ key: string; waitMs: number }> }

/**
 * Slack counts its limits per workspace, not per process, so replicas must spend one budget between them.
 * The pacer keeps its own buckets (they pace this process and spare a round trip when they are empty) and,
 * when it has one of these, asks it just before each call: `take` spends a token from every budget of the
 * call for the whole cluster, or refuses. A single process has none (the default): its own buckets are the
 * whole budget. The PostgreSQL implementation is src/store/postgres-pacing-budget.ts.
 */
export interface SharedPacingBudget {
  /** Spends one token from each of `budgets` if each has one and neither they nor `holdKey` are held. */
  take(budgets: readonly BudgetDraw[], holdKey: string): Promise<Admission>
  /** Slack answered 429: holds `holdKey` for `holdMs` and empties `budgets`, for every replica. */
  hold(holdKey: string, budgets: readonly BudgetDraw[], holdMs: number): Promise<void>
}
