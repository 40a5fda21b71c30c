-- The Slack pacing budgets that several replicas share (docs/scaling.md): one row per budget key (a
-- method's workspace budget, or its budget in one channel), a token bucket refilled from `at`, and a 429's
-- hold. Only the PostgreSQL store reads it (src/store/postgres-pacing-budget.ts); a single SQLite process
-- paces in memory. SQLite has the table too so that both schemas keep the same tables (and copy stays generic).
CREATE TABLE pacing_budgets (
  key         TEXT    PRIMARY KEY,                 -- src/slack/rate-limits.ts budgetKey()
  tokens      {real}  NOT NULL,                    -- calls that may go now; may be fractional or negative
  at          {millis} NOT NULL,                    -- unix milliseconds the tokens were counted at
  held_until  {millis} NOT NULL DEFAULT 0           -- unix milliseconds: a 429's Retry-After ends here
);
