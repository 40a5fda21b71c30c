-- Once-per-run claims: a scheduled job (the digest, say) runs its work only after inserting its
-- (job, run_key) here, so of several processes on one database exactly one does each run. Cleanup ages
-- old claims out with the other rows.
CREATE TABLE job_runs (
  job         TEXT    NOT NULL,            -- e.g. digest:0 9 * * 1-5
  run_key     TEXT    NOT NULL,            -- e.g. the local date of the run, 2026-11-23
  claimed_at  {millis} NOT NULL,            -- unix milliseconds
  PRIMARY KEY (job, run_key)
);
CREATE INDEX job_runs_claimed_at ON job_runs (claimed_at);

-- The pull request's last activity the digest reads: its announcement, a review, a comment (unix
-- milliseconds). NULL: a row written before this column existed; the digest then uses created_at.
ALTER TABLE slack_messages ADD COLUMN activity_at {millis};
