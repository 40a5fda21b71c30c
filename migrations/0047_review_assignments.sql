-- Reviewers assigned from a team (`assign:` of a mapping entry, docs/review-loop.md "Assigning reviewers").
-- One row per pull request: the decision, made once. The first replica's INSERT ... ON CONFLICT DO NOTHING
-- claims it (like the digest's job_runs claim); a second replica, or a replay after a crash, reads the row
-- and carries out that same decision. `reviewers` is a JSON list of the chosen `users:` keys, `said` the
-- line for the thread, `requested_at` when the host took the request (null until then). The newest row of a
-- team is round_robin's position (a team with no assignment for cleanup.message_ttl_days starts again).
CREATE TABLE review_assignments (
  provider      TEXT     NOT NULL,
  repository    TEXT     NOT NULL,
  pr_number     INTEGER  NOT NULL,
  team_key      TEXT     NOT NULL,           -- provider, owner and team, lower-cased
  reviewers     TEXT     NOT NULL,
  said          TEXT     NOT NULL,
  decided_at    {millis} NOT NULL,
  requested_at  {millis},
  PRIMARY KEY (provider, repository, pr_number)
);
CREATE INDEX review_assignments_by_team ON review_assignments (team_key, decided_at);
-- The daily cleanup deletes decisions older than cleanup.message_ttl_days, with the run claims.
CREATE INDEX review_assignments_decided_at ON review_assignments (decided_at);

-- `/prherald away until 2026-12-24`: the person is left out of assignments through that day (UTC), inclusive.
CREATE TABLE away_marks (
  slack_user  TEXT     PRIMARY KEY,
  until_day   TEXT     NOT NULL,             -- YYYY-MM-DD
  set_at      {millis} NOT NULL
);
