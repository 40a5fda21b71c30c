-- Twin of migrations/0011_pacing_budgets.sql: the Slack pacing budgets the replicas share, one row per
-- budget key, updated under a row lock by whichever replica is about to call Slack
-- (src/store/postgres-pacing-budget.ts, docs/scaling.md).
CREATE TABLE pacing_budgets (
  key         TEXT              PRIMARY KEY,
  tokens      DOUBLE PRECISION  NOT NULL,
  at          BIGINT            NOT NULL,
  held_until  BIGINT            NOT NULL DEFAULT 0
);
