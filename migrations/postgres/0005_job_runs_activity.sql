-- Twin of migrations/0005_job_runs_activity.sql: once-per-run claims (INSERT ... ON CONFLICT DO NOTHING
-- makes exactly one replica the runner of each (job, run_key)), and the last activity the digest reads.
CREATE TABLE job_runs (
  job         TEXT    NOT NULL,
  run_key     TEXT    NOT NULL,
  claimed_at  BIGINT  NOT NULL,
  PRIMARY KEY (job, run_key)
);
CREATE INDEX job_runs_claimed_at ON job_runs (claimed_at);

ALTER TABLE slack_messages ADD COLUMN activity_at BIGINT;
